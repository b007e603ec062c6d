package embedded

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

// wbClass is a character's Word_Break property (Unicode UAX #29) as
// Lucene's StandardTokenizer uses it, with the classes it adds for the
// characters that make tokens of their own (ideographs, hiragana, South
// East Asian scripts, emoji).
type wbClass uint8

const (
	wbOther wbClass = iota
	wbALetter
	wbHebrew // Hebrew_Letter
	wbNumeric
	wbKatakana
	wbExtendNumLet
	wbMidLetter
	wbMidNum
	wbMidNumLet
	wbSingleQuote
	wbDoubleQuote
	wbExtend   // Extend, Format and ZWJ: part of the character before (WB4)
	wbHan      // one token per character
	wbHiragana // one token per character
	wbComplex  // Line_Break=Complex_Context: runs are one token
	wbEmoji
	wbEmojiModifier
	wbRegional // Regional_Indicator: pairs are one token

	// wbHebrewQuote is not a character's class but the state after a
	// Hebrew letter and an apostrophe (WB7a), which only letters, digits
	// and connectors may follow.
	wbHebrewQuote
)

const (
	zwj           = '\u200d'
	textPresSel   = '\ufe0e'
	emojiPresSel  = '\ufe0f'
	combineKeycap = '\u20e3'
)

// asciiClass is the class of every ASCII character: what log text is
// mostly made of, looked up without decoding.
var asciiClass = func() (t [utf8.RuneSelf]wbClass) {
	for c := range t {
		t[c] = classRune(rune(c))
	}
	return t
}()

// asciiWord marks the ASCII letters, digits and "_".
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c, class := range asciiClass {
		t[c] = class == wbALetter || class == wbNumeric || class == wbExtendNumLet
	}
	return t
}()

// smallClass caches the classes of the two-byte UTF-8 range (Latin,
// Greek, Cyrillic, Hebrew, Arabic…), so that accented text costs a table
// lookup too.
var smallClass = func() (t [0x800]wbClass) {
	for r := range t {
		t[r] = classRune(rune(r))
	}
	return t
}()

// classAt returns the class, value and size of the character at s[i].
// Invalid UTF-8 is a character of class wbOther.
func classAt(s string, i int) (wbClass, rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass[c], rune(c), 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r < 0x800 {
		return smallClass[r], r, size
	}
	return classRune(r), r, size
}

// classRune computes the class of r from the Unicode tables. The
// Word_Break property is not in package unicode, so it is derived as UAX
// #29 defines it, from general categories and scripts, with the
// characters it lists by name.
func classRune(r rune) wbClass {
	switch r {
	case '\'':
		return wbSingleQuote
	case '"':
		return wbDoubleQuote
	case ':', '\u00b7', '\u0387', '\u05f4', '\u2027', '\ufe13', '\ufe55', '\uff1a':
		return wbMidLetter
	case '.', '\u2018', '\u2019', '\u2024', '\ufe52', '\uff07', '\uff0e':
		return wbMidNumLet
	case ',', ';', '\u037e', '\u0589', '\u060c', '\u060d', '\u066c', '\u07f8', '\u2044',
		'\ufe10', '\ufe14', '\ufe50', '\ufe54', '\uff0c', '\uff1b':
		return wbMidNum
	case '\u202f':
		return wbExtendNumLet
	case '\u200b':
		return wbOther // ZERO WIDTH SPACE is a Format character that breaks
	case '\u3031', '\u3032', '\u3033', '\u3034', '\u3035', '\u309b', '\u309c', '\u30a0', '\u30fc', '\uff70':
		return wbKatakana
	case '\u05f3':
		return wbALetter
	}
	switch {
	case r < '0':
		return wbOther
	case unicode.Is(unicode.Pc, r):
		return wbExtendNumLet
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc, unicode.Cf):
		return wbExtend
	case unicode.IsDigit(r):
		return wbNumeric
	case r >= 0x1f1e6 && r <= 0x1f1ff:
		return wbRegional
	case r >= 0x1f3fb && r <= 0x1f3ff:
		return wbEmojiModifier
	case inRanges(pictographic, r):
		return wbEmoji
	case unicode.Is(unicode.Han, r):
		return wbHan
	case unicode.Is(unicode.Hiragana, r):
		return wbHiragana
	case unicode.Is(unicode.Katakana, r):
		return wbKatakana
	case unicode.In(r, complexContext...) && (unicode.IsLetter(r) || unicode.IsMark(r)):
		return wbComplex
	case unicode.Is(unicode.Hebrew, r) && unicode.IsLetter(r):
		return wbHebrew
	case unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || inRanges(otherALetter, r):
		return wbALetter
	}
	return wbOther
}

// complexContext are the scripts of Line_Break=Complex_Context, written
// without spaces between words: UAX #29 leaves them to dictionaries, and
// Lucene keeps their runs together.
var complexContext = []*unicode.RangeTable{
	unicode.Thai, unicode.Lao, unicode.Myanmar, unicode.Khmer, unicode.Tai_Le,
	unicode.New_Tai_Lue, unicode.Tai_Tham, unicode.Tai_Viet, unicode.Ahom,
}

type runeRange struct{ lo, hi rune }

func inRanges(t []runeRange, r rune) bool {
	i := sort.Search(len(t), func(i int) bool { return t[i].hi >= r })
	return i < len(t) && t[i].lo <= r
}

// otherALetter are the non-letters Word_Break lists as ALetter: modifier
// symbols, Armenian punctuation inside words, circled letters.
var otherALetter = []runeRange{
	{0x02c2, 0x02c5}, {0x02d2, 0x02d7}, {0x02de, 0x02df}, {0x02e5, 0x02eb}, {0x02ed, 0x02ed},
	{0x02ef, 0x02ff}, {0x055a, 0x055c}, {0x055e, 0x055e}, {0x058a, 0x058a}, {0x24b6, 0x24e9},
	{0xa708, 0xa716}, {0xa720, 0xa721}, {0xa789, 0xa78a}, {0xab5b, 0xab5b},
}

// pictographic is Extended_Pictographic of Unicode's emoji data 11.0,
// which Lucene's emoji rule uses, less the emoji modifiers and regional
// indicators that have classes of their own.
var pictographic = []runeRange{
	{0x00a9, 0x00a9}, {0x00ae, 0x00ae}, {0x203c, 0x203c}, {0x2049, 0x2049}, {0x2122, 0x2122},
	{0x2139, 0x2139}, {0x2194, 0x2199}, {0x21a9, 0x21aa}, {0x231a, 0x231b}, {0x2328, 0x2328},
	{0x2388, 0x2388}, {0x23cf, 0x23cf}, {0x23e9, 0x23f3}, {0x23f8, 0x23fa}, {0x24c2, 0x24c2},
	{0x25aa, 0x25ab}, {0x25b6, 0x25b6}, {0x25c0, 0x25c0}, {0x25fb, 0x25fe}, {0x2600, 0x2605},
	{0x2607, 0x2612}, {0x2614, 0x2685}, {0x2690, 0x2705}, {0x2708, 0x2712}, {0x2714, 0x2714},
	{0x2716, 0x2716}, {0x271d, 0x271d}, {0x2721, 0x2721}, {0x2728, 0x2728}, {0x2733, 0x2734},
	{0x2744, 0x2744}, {0x2747, 0x2747}, {0x274c, 0x274c}, {0x274e, 0x274e}, {0x2753, 0x2755},
	{0x2757, 0x2757}, {0x2763, 0x2767}, {0x2795, 0x2797}, {0x27a1, 0x27a1}, {0x27b0, 0x27b0},
	{0x27bf, 0x27bf}, {0x2934, 0x2935}, {0x2b05, 0x2b07}, {0x2b1b, 0x2b1c}, {0x2b50, 0x2b50},
	{0x2b55, 0x2b55}, {0x3030, 0x3030}, {0x303d, 0x303d}, {0x3297, 0x3297}, {0x3299, 0x3299},
	{0x1f000, 0x1f0ff}, {0x1f10d, 0x1f10f}, {0x1f12f, 0x1f12f}, {0x1f16c, 0x1f171},
	{0x1f17e, 0x1f17f}, {0x1f18e, 0x1f18e}, {0x1f191, 0x1f19a}, {0x1f1ad, 0x1f1e5},
	{0x1f201, 0x1f20f}, {0x1f21a, 0x1f21a}, {0x1f22f, 0x1f22f}, {0x1f232, 0x1f23a},
	{0x1f23c, 0x1f23f}, {0x1f249, 0x1f3fa}, {0x1f400, 0x1f53d}, {0x1f546, 0x1f64f},
	{0x1f680, 0x1f6ff}, {0x1f774, 0x1f77f}, {0x1f7d5, 0x1f7ff}, {0x1f80c, 0x1f80f},
	{0x1f848, 0x1f84f}, {0x1f85a, 0x1f85f}, {0x1f888, 0x1f88f}, {0x1f8ae, 0x1f8ff},
	{0x1f90c, 0x1f93a}, {0x1f93c, 0x1f945}, {0x1f947, 0x1fffd},
}
