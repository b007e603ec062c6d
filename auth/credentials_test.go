package auth_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

func basic(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }

func TestParseAuthorization(t *testing.T) {
	type parseCase struct {
		header string
		want   auth.Credentials
		bad    bool
	}
	cases := []parseCase{
		{"", auth.Credentials{}, false},
		{"Foobar", auth.Credentials{}, false},
		{"Bearer abc", auth.Credentials{}, false},
		{"Basic ****", auth.Credentials{}, true},
		{basic("user_pass"), auth.Credentials{}, true},
		{basic("user:pass"), auth.Credentials{Kind: auth.Password, User: "user", Secret: "pass"}, false},
		{basic("user:pass:word"), auth.Credentials{Kind: auth.Password, User: "user", Secret: "pass:word"}, false},
		{basic("user:"), auth.Credentials{Kind: auth.Password, User: "user", Secret: ""}, false},
		{basic("abc:session"), auth.Credentials{Kind: auth.Session, User: "abc"}, false},
		{basic("abc:SeSsIoN"), auth.Credentials{Kind: auth.Session, User: "abc"}, false},
		{basic("undefined:session"), auth.Credentials{}, false},
		{basic("tok:token"), auth.Credentials{Kind: auth.Token, User: "tok"}, false},
		{basic("tok:TOKEN"), auth.Credentials{Kind: auth.Token, User: "tok"}, false},
		{basic(":token"), auth.Credentials{}, true},
		{"basic " + base64.StdEncoding.EncodeToString([]byte("a:b")), auth.Credentials{Kind: auth.Password, User: "a", Secret: "b"}, false},
		// Longer than the stack buffers.
		{basic(strings.Repeat("u", 300) + ":" + strings.Repeat("p", 300)), auth.Credentials{Kind: auth.Password, User: strings.Repeat("u", 300), Secret: strings.Repeat("p", 300)}, false},
		{basic(strings.Repeat("u", 300) + "_pass"), auth.Credentials{}, true},
	}
	// Around the stack buffers' sizes: 256 to 258 bytes of user:secret
	// all encode to 344 characters (two, one and no padding characters);
	// 257 and 258 panicked in base64's Decode with a 256-byte buffer.
	for n := 254; n <= 260; n++ {
		user, secret := "u", strings.Repeat("p", n-2)
		cases = append(cases, parseCase{basic(user + ":" + secret), auth.Credentials{Kind: auth.Password, User: user, Secret: secret}, false})
	}
	// 344 characters that are not user:secret: a 400, nothing else.
	cases = append(cases, parseCase{"Basic " + strings.Repeat("0", 344), auth.Credentials{}, true})
	for _, c := range cases {
		got, err := auth.ParseAuthorization(c.header)
		if c.bad {
			if api.ErrorCode(err) != api.Invalid || !strings.Contains(err.Error(), "Invalid credentials in Authorization header") {
				t.Errorf("%q: err %v, want the 400", c.header, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %+v, %v; want %+v", c.header, got, err, c.want)
		}
	}
}

// Reading credentials and their cache key cost one allocation each (the
// strings returned): both run on every authenticated request.
func TestCredentialsAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector adds allocations")
	}
	header := basic("1vlu3emcfbj0fk5mlso5ep5prm4hcr3oq3ai0t4cq9jbsv4t0gu8:token")
	keys := auth.DeriveKeys("a password secret of some length")
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"ParseAuthorization", func() { _, _ = auth.ParseAuthorization(header) }},
		{"CacheKey", func() { keys.CacheKey(auth.Password, "someone", "a password of some length, longer than 32 bytes") }},
	} {
		if n := testing.AllocsPerRun(100, c.f); n != 1 {
			t.Errorf("%s: %v allocations, want 1", c.name, n)
		}
	}
}

func FuzzParseAuthorization(f *testing.F) {
	for _, s := range []string{"", "Basic ****", basic("a:b"), basic("x:token"), basic("undefined:session"), "Basic", "Basic  " + basic("a:b")[6:]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		c, err := auth.ParseAuthorization(header)
		if err != nil {
			if api.ErrorCode(err) != api.Invalid {
				t.Fatalf("error of code %v: %v", api.ErrorCode(err), err)
			}
			return
		}
		switch c.Kind {
		case auth.None:
			if c.User != "" || c.Secret != "" {
				t.Fatalf("anonymous credentials carry data: %+v", c)
			}
		case auth.Token, auth.Session:
			if c.User == "" || c.Secret != "" {
				t.Fatalf("%+v", c)
			}
		case auth.Password:
			// The decoded text must be user:secret split at the first colon.
			if strings.Contains(c.User, ":") {
				t.Fatalf("user %q contains a colon", c.User)
			}
		}
	})
}

func TestCheckPassword(t *testing.T) {
	hash, err := auth.HashPassword("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$2a$10$") {
		t.Errorf("hash %q is not bcrypt cost 10", hash)
	}
	root := auth.RootPasswordHash("8C6976E5B5410415BDE908BD4DEE15DFB167A9C873FC4BB8A81F6F2AB448A918") // sha256("admin")
	for _, c := range []struct {
		stored, pw string
		ok         bool
	}{
		{hash, "s3cret", true}, {hash, "s3cret ", false}, {hash, "", false},
		{root, "admin", true}, {root, "Admin", false}, {"", "", false}, {"garbage", "x", false},
	} {
		if got := auth.CheckPassword(c.stored, c.pw); got != c.ok {
			t.Errorf("CheckPassword(%.12q, %q) = %v", c.stored, c.pw, got)
		}
	}
}

func TestTokenSealing(t *testing.T) {
	k := auth.DeriveKeys("a secret of enough length")
	other := auth.DeriveKeys("another secret of enough length")
	tok, err := auth.NewTokenValue()
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := k.SealToken(tok)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, tok) {
		t.Fatal("sealed token contains the token")
	}
	if got, err := k.OpenToken(sealed); err != nil || got != tok {
		t.Fatalf("OpenToken = %q, %v", got, err)
	}
	if _, err := other.OpenToken(sealed); err == nil {
		t.Error("a token sealed under one secret opened under another")
	}
	first, again := k.TokenLookup(tok), k.TokenLookup(tok)
	if first == other.TokenLookup(tok) || first != again {
		t.Error("lookup hashes must be keyed and deterministic")
	}
	if k.CacheKey(auth.Password, "a", "bc") == k.CacheKey(auth.Password, "ab", "c") {
		t.Error("cache key parts must be delimited")
	}
	if k.CacheKey(auth.Token, "x") == k.CacheKey(auth.Session, "x") {
		t.Error("cache keys of different kinds collide")
	}
}
