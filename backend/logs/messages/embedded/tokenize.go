package embedded

import (
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// maxTokenLength is the standard tokenizer's max_token_length default: a
// longer token is split at that length, counted as Java counts it, in
// UTF-16 code units.
const maxTokenLength = 255

// segmentWords calls fn with the bounds of every token of s, in order,
// following Lucene's StandardTokenizer (Lucene 7 and 8, the tokenizer of
// Elasticsearch's standard analyzer): the word boundaries of Unicode UAX
// #29, keeping only the segments that hold letters, digits, ideographs or
// emoji. In short:
//
//   - letters and digits join ("abc123"), and so does the connector
//     punctuation "_" ("user_id", "__init__"), WB5, WB8-10, WB13a-b;
//   - "." and "'" join two letters ("index.html", "dog's"), and ":" too,
//     as the MidLetter it is ("foo:bar"), WB6-7;
//   - ".", "'", "," and ";" join two digits ("10.0.0.1", "1,000.5"),
//     WB11-12, but ":" does not ("10:30" is two tokens);
//   - two such characters in a row, or one at an end, split ("a..b",
//     "end.");
//   - katakana runs join; each ideograph and each hiragana is a token;
//     Thai, Lao, Khmer and Myanmar runs are one token; emoji sequences
//     (with modifiers, ZWJ and flags) are tokens;
//   - combining marks and format characters belong to the character
//     before them (WB4);
//   - everything else (spaces, "-", "/", "@", "=", symbols) splits and
//     is dropped.
func segmentWords(s string, fn func(start, end int)) {
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf && !asciiWord[b] && b != '#' && b != '*' {
			i++ // spaces and punctuation: what most of the rest is
			continue
		}
		c, r, size := classAt(s, i)
		switch c {
		case wbALetter, wbHebrew, wbNumeric, wbKatakana, wbExtendNumLet:
			end, next := scanWord(s, i)
			if end > i {
				fn(i, end)
			}
			i = next
			continue
		case wbHan, wbHiragana:
			end, _ := extend(s, i+size, utf16Len(r))
			fn(i, end)
			i = end
			continue
		case wbComplex:
			end := scanComplex(s, i)
			fn(i, end)
			i = end
			continue
		case wbEmoji, wbEmojiModifier:
			end := scanEmoji(s, i)
			fn(i, end)
			i = end
			continue
		case wbRegional:
			if end, ok := scanFlag(s, i, size); ok {
				fn(i, end)
				i = end
				continue
			}
		case wbOther:
			if r == '#' || r == '*' {
				if end, ok := scanKeycap(s, i); ok {
					fn(i, end)
					i = end
					continue
				}
			}
		}
		i += size
	}
}

// scanWord scans the word starting at s[start], a letter, digit, katakana
// or connector. It returns the end of the token, start if there is none
// (connectors without a letter or digit), and where scanning goes on.
func scanWord(s string, start int) (end, next int) {
	last, r, size := classAt(s, start)
	units := utf16Len(r)
	pos, units := extend(s, start+size, units)
	core := last != wbExtendNumLet
	end = start
	if core {
		end = pos
	}
	for pos < len(s) {
		// The fast path: ASCII letters, digits and "_" after anything but
		// katakana, with no Extend character possible after them.
		if b := s[pos]; b < utf8.RuneSelf && asciiWord[b] && last != wbKatakana {
			if units == maxTokenLength {
				if core {
					return end, end
				}
				return start, pos
			}
			pos++
			units++
			last = asciiClass[b]
			if last != wbExtendNumLet {
				core = true
			}
			if pos < len(s) && s[pos] >= utf8.RuneSelf {
				pos, units = extend(s, pos, units)
			}
			if core {
				end = pos
			}
			continue
		}
		c, r, size := classAt(s, pos)
		adv, advUnits, became := size, utf16Len(r), c
		var join bool
		switch c {
		case wbALetter, wbHebrew, wbNumeric:
			join = last != wbKatakana // WB5, WB8-10, WB13b
		case wbKatakana:
			join = last == wbKatakana || last == wbExtendNumLet // WB13, WB13b
		case wbExtendNumLet:
			join = true // WB13a
		case wbSingleQuote, wbDoubleQuote, wbMidLetter, wbMidNum, wbMidNumLet:
			if last == wbHebrew && c == wbSingleQuote { // WB7a
				join, became = true, wbHebrewQuote
				break
			}
			// WB6-7, WB7b-c, WB11-12: the character between two letters
			// or two digits, with the one after it.
			after, afterUnits := extend(s, pos+size, advUnits)
			if after >= len(s) {
				break
			}
			c2, r2, size2 := classAt(s, after)
			letters := (last == wbALetter || last == wbHebrew) && (c2 == wbALetter || c2 == wbHebrew)
			switch {
			case letters && (c == wbMidLetter || c == wbMidNumLet || c == wbSingleQuote),
				last == wbNumeric && c2 == wbNumeric && (c == wbMidNum || c == wbMidNumLet || c == wbSingleQuote),
				last == wbHebrew && c2 == wbHebrew && c == wbDoubleQuote:
				join, became = true, c2
				adv, advUnits = after+size2-pos, afterUnits+utf16Len(r2)
			}
		}
		if !join {
			break
		}
		if units+advUnits > maxTokenLength {
			// Split as Lucene does: the token ends at the last point it
			// could, and scanning restarts there.
			if core {
				return end, end
			}
			return start, pos
		}
		pos, units = extend(s, pos+adv, units+advUnits)
		last = became
		if c != wbExtendNumLet {
			core = true
		}
		if core {
			end = pos
		}
	}
	if !core {
		return start, pos
	}
	return end, end
}

// extend skips the Extend and Format characters at s[i:], which belong to
// the character before them (WB4), as long as the token stays within
// maxTokenLength.
func extend(s string, i, units int) (int, int) {
	for i < len(s) && units < maxTokenLength {
		c, r, size := classAt(s, i)
		if c != wbExtend {
			break
		}
		i += size
		units += utf16Len(r)
	}
	return i, units
}

// scanComplex scans a run of South East Asian characters.
func scanComplex(s string, start int) int {
	pos, units := start, 0
	for pos < len(s) {
		c, r, size := classAt(s, pos)
		if c != wbComplex || units+utf16Len(r) > maxTokenLength {
			break
		}
		pos, units = extend(s, pos+size, units+utf16Len(r))
	}
	return pos
}

// scanEmoji scans an emoji sequence: emoji joined by ZWJ, each with its
// presentation selector and skin-tone modifier.
func scanEmoji(s string, start int) int {
	pos, units := start, 0
	prev := wbOther
	for pos < len(s) {
		c, r, size := classAt(s, pos)
		switch {
		case c == wbEmojiModifier && prev != wbEmojiModifier:
		case (c == wbEmoji || c == wbEmojiModifier) && (pos == start || prev == wbExtend):
		default:
			return pos
		}
		if units+utf16Len(r) > maxTokenLength {
			return pos
		}
		pos, units = pos+size, units+utf16Len(r)
		prev = c
		// The Extend characters after it, less a text presentation
		// selector; prev becomes wbExtend only after a ZWJ, which lets
		// another emoji join.
		for pos < len(s) && units < maxTokenLength {
			c, r, size := classAt(s, pos)
			if c != wbExtend || r == textPresSel {
				break
			}
			pos, units = pos+size, units+utf16Len(r)
			if r == zwj {
				prev = wbExtend
			} else if prev == wbExtend {
				prev = wbEmoji
			}
		}
	}
	return pos
}

// scanFlag scans a pair of regional indicators; a lone one is no token.
func scanFlag(s string, start, size int) (int, bool) {
	pos, units := extend(s, start+size, 2)
	if pos >= len(s) {
		return 0, false
	}
	if c, _, size := classAt(s, pos); c == wbRegional && units+2 <= maxTokenLength {
		end, _ := extend(s, pos+size, units+2)
		return end, true
	}
	return 0, false
}

// scanKeycap scans a keycap emoji: # or * with U+20E3, maybe with the
// emoji presentation selector between. Digit keycaps are numbers whose
// combining mark extends them.
func scanKeycap(s string, start int) (int, bool) {
	pos, units := start+1, 1
	if r, size := utf8.DecodeRuneInString(s[pos:]); r == emojiPresSel {
		pos, units = pos+size, units+1
	}
	if r, size := utf8.DecodeRuneInString(s[pos:]); r == combineKeycap {
		end, _ := extend(s, pos+size, units+1)
		return end, true
	}
	return 0, false
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// tokenizer applies the standard analyzer: segmentWords, then lower-case.
// It keeps the buffer lower-casing writes to, so that analyzing text
// allocates nothing. The zero value is ready to use; it is not safe for
// concurrent use.
type tokenizer struct {
	buf []byte
}

// each calls fn with every token of s, lower-cased. The string fn gets
// may share memory with the tokenizer: it is valid only until fn returns,
// and fn must copy it to keep it.
func (t *tokenizer) each(s string, fn func(tok string)) {
	segmentWords(s, func(start, end int) {
		fn(t.lower(s[start:end]))
	})
}

// lower returns s lower-cased as Lucene's LowerCaseFilter does (rune by
// rune), s itself when it has no upper case. Like each's tokens, the
// result is valid until the next call.
func (t *tokenizer) lower(s string) string {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || (c >= 'A' && c <= 'Z') {
			break
		}
	}
	if i == len(s) {
		return s
	}
	b := append(t.buf[:0], s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, c)
			continue
		}
		b = utf8.AppendRune(b, unicode.ToLower(r))
		i += size - 1
	}
	t.buf = b
	return unsafe.String(unsafe.SliceData(b), len(b))
}
