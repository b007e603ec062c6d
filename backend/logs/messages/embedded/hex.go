package embedded

import "slices"

// Id text (version 4). Ids are mostly written in a small alphabet:
// hexadecimal digits of one case (request and trace ids) or Crockford's
// base 32 (ULIDs, such as Graylog's message ids). Where every byte a
// string column or a dictionary run writes is in one of these, it writes
// each as 4 or 5 bits instead of 8, the difference (modulo 16 or 32) to
// the digit at the same position of the value before. Random ids cost
// what their digits carry; ids that grow with time differ from the one
// before in a few digits, and the zeros of the others compress away.
const (
	hexNone   = 0
	hexLower  = 1
	hexUpper  = 2
	base32    = 3 // Crockford's, upper case
	alphabets = 4
)

var (
	hexDigits = [alphabets]string{"", "0123456789abcdef", "0123456789ABCDEF", "0123456789ABCDEFGHJKMNPQRSTVWXYZ"}
	digitBits = [alphabets]uint{8, 4, 4, 5}
	// hexMask has, for each byte, the alphabets it is a digit of (bit
	// a-1 for alphabet a); hexValue its value in them (the same in every
	// one), 0 for other bytes.
	hexMask  [256]byte
	hexValue [256]byte
)

func init() {
	for a := hexLower; a < alphabets; a++ {
		for i := range len(hexDigits[a]) {
			hexMask[hexDigits[a][i]] |= 1 << (a - 1)
			hexValue[hexDigits[a][i]] = byte(i)
		}
	}
}

// hexCase follows the alphabets of the digits seen: start it at
// newHexCase, feed it text, and read the alphabet of all of it with get.
type hexCase byte

const newHexCase hexCase = 1<<(alphabets-1) - 1

func (c *hexCase) add(s string) {
	for i := 0; i < len(s) && *c != 0; i++ {
		*c &= hexCase(hexMask[s[i]])
	}
}

// get returns the smallest alphabet all the text was in (lower-case
// hexadecimal for digits alone), hexNone if none.
func (c hexCase) get() byte {
	for a := hexLower; a < alphabets; a++ {
		if c&(1<<(a-1)) != 0 {
			return byte(a)
		}
	}
	return hexNone
}

// nibbles writes digits of alphabet a, in digitBits[a] bits each, the
// first in a byte's high bits.
type nibbles struct {
	e    enc
	a    byte
	acc  uint64
	bits uint
}

func (w *nibbles) put(n byte) {
	w.acc = w.acc<<digitBits[w.a] | uint64(n)
	w.bits += digitBits[w.a]
	for w.bits >= 8 {
		w.bits -= 8
		w.e = append(w.e, byte(w.acc>>w.bits))
	}
}

// digits writes v[from:], each digit less the one at its position in ref.
func (w *nibbles) digits(ref, v string, from int) {
	mask := byte(1)<<digitBits[w.a] - 1
	for p := from; p < len(v); p++ {
		n := hexValue[v[p]]
		if p < len(ref) {
			n -= hexValue[ref[p]]
		}
		w.put(n & mask)
	}
}

// done writes the bits left, and returns the encoding.
func (w *nibbles) done() enc {
	if w.bits > 0 {
		w.e = append(w.e, byte(w.acc<<(8-w.bits)))
		w.bits = 0
	}
	return w.e
}

// nibbleReader reads what nibbles wrote; the caller checks that b holds
// the digits it reads (nibbleBytes).
type nibbleReader struct {
	b    []byte
	a    byte
	acc  uint64
	bits uint
}

// appendDigits appends n digits to out, the value's from position p on,
// each the next one read plus the digit at its position in ref.
func (r *nibbleReader) appendDigits(out []byte, ref []byte, p, n int) []byte {
	w := digitBits[r.a]
	mask := byte(1)<<w - 1
	digits := hexDigits[r.a]
	out = slices.Grow(out, n)
	o := out[len(out) : len(out)+n]
	// The part of ref past p, as long as the digits at most.
	if p < len(ref) {
		ref = ref[p:min(len(ref), p+n)]
	} else {
		ref = nil
	}
	acc, bits, b := r.acc, r.bits, r.b
	j := 0
	if w == 4 && len(ref) == 0 {
		// Two digits a byte, when whole bytes are left.
		if bits == 4 && n > 0 {
			o[0] = digits[byte(acc)&15]
			bits, j = 0, 1
		}
		for ; j+1 < n; j += 2 {
			o[j], o[j+1] = digits[b[0]>>4], digits[b[0]&15]
			b = b[1:]
		}
	}
	// Digits against ref, then the others.
	for ; j < len(ref); j++ {
		if bits < w {
			acc = acc<<8 | uint64(b[0])
			b = b[1:]
			bits += 8
		}
		bits -= w
		o[j] = digits[(byte(acc>>bits)+hexValue[ref[j]])&mask]
	}
	for ; j < n; j++ {
		if bits < w {
			acc = acc<<8 | uint64(b[0])
			b = b[1:]
			bits += 8
		}
		bits -= w
		o[j] = digits[byte(acc>>bits)&mask]
	}
	r.acc, r.bits, r.b = acc, bits, b
	return out[:len(out)+n]
}

// nibbleBytes is the size of n digits of alphabet a.
func nibbleBytes(n uint64, a byte) uint64 { return (n*uint64(digitBits[a]) + 7) / 8 }
