package api

import (
	"math"
	"net/url"
	"strconv"
	"strings"
)

// MaxInt32 is the largest value of the integer parameters Graylog declares as
// Java ints (limit, offset, range, …): the limit a 400
// names when a value is larger.
const MaxInt32 = math.MaxInt32

// IntParam reads the integer query parameter name of q, def when it is absent
// or empty. A value that is not a whole number, or is outside [lo, hi], is a
// 400 naming the parameter and its limits, so that no caller computes with a
// value that overflows further on.
func IntParam(q url.Values, name string, def, lo, hi int) (int, error) {
	v := strings.TrimSpace(q.Get(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < int64(lo) || n > int64(hi) {
		return 0, RangeError(name, v, lo, hi)
	}
	return int(n), nil
}

// RangeError is the 400 of an integer parameter outside [lo, hi]; bodies
// with integer properties use it too.
func RangeError(name, value string, lo, hi int) error {
	return Errorf(Invalid, "Invalid %s %q; it must be a whole number from %d to %d", name, value, lo, hi)
}
