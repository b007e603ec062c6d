package embedded

// Hexadecimal text (version 4). Ids are mostly hexadecimal digits of one
// case: request and trace ids, Graylog's message ids. Where every byte a
// string column or a dictionary run writes is such a digit, it writes
// nibbles instead, half the bytes, each the difference (modulo 16) to the
// digit at the same position of the value before. Random ids cost the
// same as their digits; ids that grow with time differ from the one
// before in a few digits, and the zero nibbles of the others compress
// away.
const (
	hexNone  = 0
	hexLower = 1
	hexUpper = 2
)

var (
	hexDigits = [3]string{"", "0123456789abcdef", "0123456789ABCDEF"}
	// hexMask has, for each byte, the cases it is a digit of (bit 0
	// lower, bit 1 upper); hexValue its value, 0 for other bytes.
	hexMask  [256]byte
	hexValue [256]byte
)

func init() {
	for i := range 16 {
		hexMask[hexDigits[hexLower][i]] |= 1 << (hexLower - 1)
		hexMask[hexDigits[hexUpper][i]] |= 1 << (hexUpper - 1)
		hexValue[hexDigits[hexLower][i]] = byte(i)
		hexValue[hexDigits[hexUpper][i]] = byte(i)
	}
}

// hexCase follows the case of the hexadecimal digits seen: start it at
// newHexCase, feed it text, and read the case of all of it with get.
type hexCase byte

const newHexCase hexCase = 3

func (c *hexCase) add(s string) {
	for i := 0; i < len(s) && *c != 0; i++ {
		*c &= hexCase(hexMask[s[i]])
	}
}

// get returns hexLower or hexUpper when all the text was digits of that
// case (lower for digits alone), hexNone otherwise.
func (c hexCase) get() byte {
	switch {
	case c&1 != 0:
		return hexLower
	case c&2 != 0:
		return hexUpper
	}
	return hexNone
}

// nibbles writes digits as nibbles, the first of a byte in its high half.
type nibbles struct {
	e    enc
	half bool
}

func (w *nibbles) put(n byte) {
	if w.half {
		w.e[len(w.e)-1] |= n
	} else {
		w.e = append(w.e, n<<4)
	}
	w.half = !w.half
}

// digits writes v[from:], each digit less the one at its position in ref.
func (w *nibbles) digits(ref, v string, from int) {
	for p := from; p < len(v); p++ {
		n := hexValue[v[p]]
		if p < len(ref) {
			n -= hexValue[ref[p]]
		}
		w.put(n & 15)
	}
}

// nibbleReader reads what nibbles wrote; the caller checks that b holds
// the nibbles it reads.
type nibbleReader struct {
	b []byte
	k int
}

// appendDigits appends n digits to out, the value's from position p on,
// each the next nibble plus the digit at its position in ref.
func (r *nibbleReader) appendDigits(out []byte, digits string, ref []byte, p, n int) []byte {
	for ; n > 0; p, n = p+1, n-1 {
		v := r.b[r.k>>1]
		if r.k&1 == 0 {
			v >>= 4
		}
		r.k++
		if p < len(ref) {
			v += hexValue[ref[p]]
		}
		out = append(out, digits[v&15])
	}
	return out
}

// nibbleBytes is the size of n nibbles.
func nibbleBytes(n uint64) uint64 { return (n + 1) / 2 }
