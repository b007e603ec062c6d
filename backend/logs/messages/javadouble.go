package messages

import (
	"bytes"
	"math"
	"strconv"
)

// JavaDouble is f as Java's Double.toString writes it, which Graylog's
// texts of numbers are: a plain decimal with at least one fractional
// digit between 10^-3 and 10^7 ("3.0", "0.5"), computerized scientific
// notation outside ("1.0E7", "1.5E-5"), and NaN, Infinity, -Infinity.
func JavaDouble(f float64) string { return string(AppendJavaDouble(nil, f)) }

// AppendJavaDouble appends JavaDouble(f) to b.
func AppendJavaDouble(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	if abs := math.Abs(f); abs >= 1e-3 && abs < 1e7 {
		start := len(b)
		b = strconv.AppendFloat(b, f, 'f', -1, 64)
		if bytes.IndexByte(b[start:], '.') < 0 {
			b = append(b, ".0"...)
		}
		return b
	}
	var tmp [32]byte
	sci := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // such as -1.5e+07
	e := bytes.IndexByte(sci, 'e')
	mant, exp := sci[:e], sci[e+1:]
	b = append(b, mant...)
	if bytes.IndexByte(mant, '.') < 0 {
		b = append(b, ".0"...)
	}
	b = append(b, 'E')
	if exp[0] == '-' {
		b = append(b, '-')
	}
	exp = bytes.TrimLeft(exp[1:], "0")
	if len(exp) == 0 {
		exp = []byte{'0'}
	}
	return append(b, exp...)
}
