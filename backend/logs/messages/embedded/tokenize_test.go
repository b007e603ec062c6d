package embedded

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The expectations are what Elasticsearch's _analyze answers with the
// standard analyzer (Lucene's StandardTokenizer and a lower-case filter).
func TestTokens(t *testing.T) {
	long := strings.Repeat("a", 300)
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  -- / ", nil},
		{"The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.",
			[]string{"the", "2", "quick", "brown", "foxes", "jumped", "over", "the", "lazy", "dog's", "bone"}},
		// letters and digits join (WB9, WB10)
		{"abc123 123abc a1b2", []string{"abc123", "123abc", "a1b2"}},
		// MidNumLet and Single_Quote between letters (WB6, WB7)
		{"GET /index.html 200", []string{"get", "index.html", "200"}},
		{"O'Neil's", []string{"o'neil's"}},
		{"a.b.c a..b .abc abc. a.", []string{"a.b.c", "a", "b", "abc", "abc", "a"}},
		// MidLetter: ":" joins letters, not digits
		{"foo:bar 10:30 trace: x", []string{"foo:bar", "10", "30", "trace", "x"}},
		{"http://example.com/path", []string{"http", "example.com", "path"}},
		// MidNum and MidNumLet between digits (WB11, WB12)
		{"10.0.0.1 1,000.5 1;2 3'000", []string{"10.0.0.1", "1,000.5", "1;2", "3'000"}},
		{"a,b a;b 1:2", []string{"a", "b", "a", "b", "1", "2"}},
		// a middle character needs the same kind on both sides
		{"abc.123 1.a v1.2 1.5a", []string{"abc", "123", "1", "a", "v1.2", "1.5a"}},
		// ExtendNumLet (WB13a, WB13b)
		{"user_id __init__ a__b _ ___ _1 x_", []string{"user_id", "__init__", "a__b", "_1", "x_"}},
		{"a_.b", []string{"a_", "b"}},
		// everything else splits
		{"user@example.com key=value a-b a+b (x) [y] {z} <w> a|b a\\b a~b a!b a?b", []string{
			"user", "example.com", "key", "value", "a", "b", "a", "b", "x", "y", "z", "w",
			"a", "b", "a", "b", "a", "b", "a", "b", "a", "b"}},
		{"tab\tnew\nline\r\nend", []string{"tab", "new", "line", "end"}},
		{"$100 #tag 50%", []string{"100", "tag", "50"}},
		// Unicode letters, case and marks
		{"Grüße ÜBER straße", []string{"grüße", "über", "straße"}},
		{"e\u0301te\u0301", []string{"e\u0301te\u0301"}},
		{"soft\u00adhyphen", []string{"soft\u00adhyphen"}},
		{"zero\u200bwidth", []string{"zero", "width"}},
		{"Привет, мир", []string{"привет", "мир"}},
		{"ΑΒΓ·δ", []string{"αβγ·δ"}},
		{"١٢٣ ٤٥", []string{"١٢٣", "٤٥"}},
		{"דוד\"ה א'", []string{"דוד\"ה", "א'"}},
		{"한국어 텍스트", []string{"한국어", "텍스트"}},
		// each ideograph and hiragana is a token; katakana runs join
		{"日本語のテキスト", []string{"日", "本", "語", "の", "テキスト"}},
		{"カタカナ_テスト カa", []string{"カタカナ_テスト", "カ", "a"}},
		{"ภาษาไทย ok", []string{"ภาษาไทย", "ok"}},
		// emoji
		{"hi 😀 there👍🏽!", []string{"hi", "😀", "there", "👍🏽"}},
		{"👨\u200d👩\u200d👧 🇫🇷 🇫 #\ufe0f\u20e3", []string{"👨\u200d👩\u200d👧", "🇫🇷", "#\ufe0f\u20e3"}},
		{"© 2024", []string{"©", "2024"}},
		// max_token_length: split every 255 UTF-16 code units
		{long, []string{long[:255], long[255:]}},
		{long[:253] + ".html", []string{long[:253] + ".h", "tml"}},
		{long[:254] + ".html", []string{long[:254], "html"}},
		{strings.Repeat("😀", 200), nil}, // not one emoji sequence: 200 tokens, checked below
		{"\xff\xfeabc\xffdef", []string{"abc", "def"}},
	}
	for _, tt := range tests {
		got := tokens(tt.in)
		if strings.HasPrefix(tt.in, "😀😀") {
			if len(got) != 200 || got[0] != "😀" {
				t.Errorf("tokens(200 emoji) = %d tokens", len(got))
			}
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("tokens(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestMaxTokenLengthCountsUTF16(t *testing.T) {
	// U+10400 is one letter and two UTF-16 code units.
	s := strings.Repeat("\U00010400", 200)
	got := tokens(s)
	if len(got) != 2 || utf8.RuneCountInString(got[0]) != 127 {
		t.Fatalf("tokens = %d, first of %d runes; want 2, the first of 127", len(got), utf8.RuneCountInString(got[0]))
	}
}

func TestClassTables(t *testing.T) {
	for r := range rune(0x800) {
		if got, want := smallClass[r], classRune(r); got != want {
			t.Fatalf("smallClass[%U] = %d, classRune = %d", r, got, want)
		}
	}
	for r := range rune(utf8.RuneSelf) {
		if asciiClass[r] != smallClass[r] {
			t.Fatalf("asciiClass[%q] = %d, want %d", r, asciiClass[r], smallClass[r])
		}
	}
	tests := map[rune]wbClass{
		'a': wbALetter, 'Z': wbALetter, '5': wbNumeric, '_': wbExtendNumLet, '.': wbMidNumLet,
		'\'': wbSingleQuote, '"': wbDoubleQuote, ':': wbMidLetter, ',': wbMidNum, ';': wbMidNum,
		'-': wbOther, ' ': wbOther, '\u0301': wbExtend, '\u200d': wbExtend, 'א': wbHebrew,
		'日': wbHan, 'の': wbHiragana, 'カ': wbKatakana, 'ー': wbKatakana, 'ก': wbComplex,
		'😀': wbEmoji, '🏽': wbEmojiModifier, '🇫': wbRegional, '\u2019': wbMidNumLet,
	}
	for r, want := range tests {
		if got := classRune(r); got != want {
			t.Errorf("classRune(%q) = %d, want %d", r, got, want)
		}
	}
}

func TestLower(t *testing.T) {
	var tk tokenizer
	tests := map[string]string{"abc": "abc", "ABC": "abc", "Web-1": "web-1", "ÜBER": "über", "İ": "i", "a\xffB": "a\xffb"}
	for in, want := range tests {
		if got := tk.lower(in); got != want {
			t.Errorf("lower(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzTokens: tokens are non-empty, in order, within maxTokenLength,
// lower-cased substrings of the input, and each is a token of its own
// when analyzed alone.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{
		"GET /index.html 200", "O'Neil's dog", "10.0.0.1:8080", "user_id=42 __x__", "a..b:c;d,e",
		"Grüße e\u0301 日本語のテキスト", "👨\u200d👩\u200d👧🇫🇷#\ufe0f\u20e3", "דוד\"ה א'",
		strings.Repeat("ab.", 120), strings.Repeat("_", 300) + "a", "\xff\xfe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prev := 0
		segmentWords(s, func(start, end int) {
			if start < prev || end <= start || end > len(s) {
				t.Fatalf("token [%d,%d) after %d in %q", start, end, prev, s)
			}
			prev = end
			tok := s[start:end]
			if n := len(utf16Units(tok)); n > maxTokenLength {
				t.Fatalf("token of %d units", n)
			}
			var alone []string
			segmentWords(tok, func(a, b int) { alone = append(alone, tok[a:b]) })
			if len(alone) != 1 || alone[0] != tok {
				t.Fatalf("token %q of %q analyzes alone as %q", tok, s, alone)
			}
		})
		var tk tokenizer
		tk.each(s, func(tok string) {
			if tok == "" || strings.ToLower(tok) != tok {
				t.Fatalf("token %q is not lower case", tok)
			}
		})
	})
}

func utf16Units(s string) []struct{} {
	var out []struct{}
	for _, r := range s {
		for range utf16Len(r) {
			out = append(out, struct{}{})
		}
	}
	return out
}

func BenchmarkTokenize(b *testing.B) {
	text := "203.0.113.42 - - [01/Mar/2024:00:00:00 +0000] \"GET /api/v1/orders/12345?page=2 HTTP/1.1\" 200 5123 " +
		"\"https://shop.example.com/cart\" \"Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0\" " +
		"Connection pool exhausted: 12 waiting, 40 active, timeout 3000 ms user_id=42"
	var tk tokenizer
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		tk.each(text, func(string) { n++ })
	}
	if n == 0 {
		b.Fatal("no tokens")
	}
}

func TestContainsRun(t *testing.T) {
	long := strings.Repeat("w ", 70) // past the 64 partial matches followed at once
	tests := []struct {
		text, phrase string
		want         bool
	}{
		{"Error in Foo", "in foo", true},
		{"Error in Foo", "foo in", false},
		{"a a a b", "a a b", true},
		{"a a c a b", "a a b", false},
		{"x y x y x z", "x y x z", true},
		{"GET /index.html 200", "get index.html 200", true},
		{"one", "one two", false},
		{"x " + long + "y", long + "y", true},
		{"x " + long + "y", long + "z", false},
	}
	for _, tt := range tests {
		var tk tokenizer
		if got := tk.containsRun(tt.text, tokens(tt.phrase)); got != tt.want {
			t.Errorf("containsRun(%.30q, %.30q) = %v, want %v", tt.text, tt.phrase, got, tt.want)
		}
	}
}
