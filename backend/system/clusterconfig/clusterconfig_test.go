package clusterconfig

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestClassRead(t *testing.T) {
	geo := classes[GeoIPClass]
	for _, c := range []struct {
		name, body, want string
		ok               bool
	}{
		{"defaults fill what is missing", `{"enabled":true}`, `{"db_path":"/etc/graylog/server/GeoLite2-City.mmdb","db_type":"MAXMIND_CITY","enabled":true}`, true},
		{"null is the default", `{"enabled":null}`, `{"db_path":"/etc/graylog/server/GeoLite2-City.mmdb","db_type":"MAXMIND_CITY","enabled":false}`, true},
		{"unknown properties are kept", `{"x":[1]}`, `{"db_path":"/etc/graylog/server/GeoLite2-City.mmdb","db_type":"MAXMIND_CITY","enabled":false,"x":[1]}`, true},
		{"wrong type", `{"enabled":"yes"}`, "", false},
		{"not an object", `[1]`, "", false},
		{"null body", `null`, "", false},
	} {
		got, err := geo.read([]byte(c.body))
		if (err == nil) != c.ok || c.ok && string(got) != c.want {
			t.Errorf("%s: %s, %v; want %s", c.name, got, err, c.want)
		}
	}
	if _, err := classes[URLWhitelistClass].read([]byte(`{"entries":[{"id":"a","type":"regex","value":"("}]}`)); err == nil {
		t.Error("a whitelist with an invalid regex was read")
	}
	big := strings.Repeat("[a-z]{1000}", 66)
	if _, err := classes[URLWhitelistClass].read([]byte(`{"entries":[{"id":"a","type":"regex","value":"` + big + `"}]}`)); err == nil {
		t.Error("a whitelist with a regex too large to compile was read")
	}
}

func TestWhitelistPermits(t *testing.T) {
	w := Whitelist{Entries: []WhitelistEntry{
		{ID: "1", Type: "literal", Value: "https://a.example.org/"},
		{ID: "2", Type: "regex", Value: `^https://b\.example\.org/`},
	}}
	for url, want := range map[string]bool{
		"https://a.example.org/": true, "https://a.example.org/x": false,
		"https://b.example.org/x": true, "http://b.example.org/": false,
	} {
		if got := w.Permits(url); got != want {
			t.Errorf("%s: %v, want %v", url, got, want)
		}
	}
	w.Disabled = true
	if !w.Permits("http://anything/") {
		t.Error("a disabled whitelist permits every URL")
	}
}

// FuzzClassRead: a client's cluster configuration body never panics, and
// what is read is a JSON object that reads back to itself.
func FuzzClassRead(f *testing.F) {
	for _, s := range []string{`{"enabled":true}`, `{"entries":[{"id":"a","type":"regex","value":"^x"}]}`, `[]`, `{"a":null}`, `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, class := range []string{GeoIPClass, URLWhitelistClass, SearchesClass} {
			doc, err := classes[class].read([]byte(body))
			if err != nil {
				continue
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(doc, &m) != nil || m == nil {
				t.Fatalf("%s: read %q into %q, not an object", class, body, doc)
			}
			again, err := classes[class].read(doc)
			if err != nil || string(again) != string(doc) {
				t.Fatalf("%s: %q read back as %q, %v", class, doc, again, err)
			}
		}
	})
}

func TestRegexForTemplate(t *testing.T) {
	re := RegexForTemplate("https://hooks.example.org/${key}?a=1&b=${value}")
	if want := `^\Qhttps://hooks.example.org/\E.*?\Q?a=1&b=\E.*?\Q\E$`; re != want {
		t.Fatalf("regex %s, want %s", re, want)
	}
	w := Whitelist{Entries: []WhitelistEntry{{ID: "1", Type: "regex", Value: re}}}
	if err := w.validate(); err != nil {
		t.Fatal(err)
	}
	for url, want := range map[string]bool{
		"https://hooks.example.org/abc?a=1&b=x": true,
		"https://hooksXexample.org/abc?a=1&b=x": false, // the dot is literal
		"https://hooks.example.org/abc?a=2&b=x": false,
	} {
		if got := w.Permits(url); got != want {
			t.Errorf("%s: %v, want %v", url, got, want)
		}
	}
}
