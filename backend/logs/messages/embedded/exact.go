package embedded

import (
	"cmp"
	"math"
	"math/big"
)

// exactFrom is where float64, the type of the numeric columns, stops
// telling integers apart: 2^53 and 2^53+1 are one float64. Where a query
// bound or a sort key of this magnitude ties with a column value, the
// stored value, which keeps integers exact, decides, as Elasticsearch's
// long fields do.
const exactFrom = 1 << 53

// exactBound is a numeric bound as written, when float64 may not hold it
// (nil otherwise, or when it is no decimal number: Infinity, hex).
func exactBound(v float64, text string) *big.Rat {
	if math.Abs(v) < exactFrom || math.IsInf(v, 0) {
		return nil
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return nil
	}
	return r
}

// exactCmp compares the stored number of field in doc with bound; ok is
// false when doc holds no number there.
func exactCmp(r *docReader, doc int, field string, bound *big.Rat) (c int, ok bool, err error) {
	m, err := r.get(doc)
	if err != nil {
		return 0, false, err
	}
	v, _ := m.Get(field)
	var x big.Rat
	switch n := v.(type) {
	case int64:
		x.SetInt64(n)
	case float64:
		if math.IsInf(n, 0) || math.IsNaN(n) {
			return 0, false, nil
		}
		x.SetFloat64(n)
	default:
		return 0, false, nil
	}
	return x.Cmp(bound), true, nil
}

// exactKey gives a numeric sort key of doc the stored integer, when its
// float64 may stand for several.
func exactKey(c *candidate, r *docReader, field string) error {
	if math.Abs(c.num) < exactFrom {
		return nil
	}
	m, err := r.get(c.doc)
	if err != nil {
		return err
	}
	if v, ok := m.Get(field); ok {
		c.exact, c.big = v.(int64)
	}
	return nil
}

// cmpNums orders two numeric sort keys: by float64, then, where it cannot
// tell them apart, by the stored integers.
func cmpNums(a, b candidate) int {
	if c := cmp.Compare(a.num, b.num); c != 0 || (!a.big && !b.big) {
		return c
	}
	switch {
	case a.big && b.big:
		return cmp.Compare(a.exact, b.exact)
	case a.big:
		return cmpIntFloat(a.exact, b.num)
	}
	return -cmpIntFloat(b.exact, a.num)
}

// cmpIntFloat compares an integer with a float64 of magnitude 2^53 or
// more, which is integral.
func cmpIntFloat(i int64, f float64) int {
	switch {
	case f >= math.MaxInt64: // 2^63: above every int64
		return -1
	case f < math.MinInt64:
		return 1
	}
	return cmp.Compare(i, int64(f))
}
