package query

// newRange builds a Range, reading * as an open bound as Elasticsearch does
// (even quoted) and normalizing the Include flag of open bounds.
func newRange(field, lower, upper string, inclLower, inclUpper bool) *Range {
	if lower == "*" {
		lower = ""
	}
	if upper == "*" {
		upper = ""
	}
	return &Range{Field: field, Lower: lower, Upper: upper,
		IncludeLower: inclLower || lower == "", IncludeUpper: inclUpper || upper == ""}
}

// rangeQuery parses the rest of [a TO b] or {a TO b} in Lucene's range state.
func (p *parser) rangeQuery(field string, open token) (Node, *SyntaxError) {
	lower, err := p.rangeBound()
	if err != nil {
		return nil, err
	}
	t := lexRange(p.q, p.pos)
	if t.kind != kTo {
		return nil, p.unexpected(t, `"TO"`)
	}
	p.pos = t.end
	upper, err := p.rangeBound()
	if err != nil {
		return nil, err
	}
	t = lexRange(p.q, p.pos)
	if t.kind != kRangeInEnd && t.kind != kRangeExEnd {
		return nil, p.unexpected(t, `"]" or "}"`)
	}
	p.pos, p.have = t.end, false
	if err := p.boost(); err != nil {
		return nil, err
	}
	return newRange(field, lower, upper, open.kind == kRangeIn, t.kind == kRangeInEnd), nil
}

func (p *parser) rangeBound() (string, *SyntaxError) {
	t := lexRange(p.q, p.pos)
	var text string
	var err *SyntaxError
	switch t.kind {
	case kGoop, kTo:
		text, err = unescape(p.q[t.pos:t.end], t.pos)
	case kBound:
		text, err = unescape(p.q[t.pos+1:t.end-1], t.pos+1)
	default:
		return "", p.unexpected(t, "a range bound")
	}
	p.pos = t.end
	return text, err
}
