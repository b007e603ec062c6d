package extractors

import (
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/joda"
)

// dateParser is the date converter: a Joda-Time pattern translated to a Go
// layout once, at build time.
type dateParser struct {
	layout  string
	loc     *time.Location
	hasYear bool
	now     func() time.Time
}

// newDateParser translates a Joda pattern. Pattern letters Go's layouts
// cannot express (week years, day of year, era, zone ids ...) are refused,
// which makes Graylog skip the converter.
func newDateParser(pattern string, loc *time.Location, now func() time.Time) (*dateParser, error) {
	l, err := joda.Translate(pattern, joda.Options{ZuluOffsets: true, AnyFraction: true, Lenient: true})
	layout, hasYear, hasZone := l.Go, l.HasYear, l.HasZone
	if err != nil {
		return nil, err
	}
	if hasZone {
		// The text's own offset wins; the configured zone applies only
		// to patterns without one, as in Graylog.
		loc = time.UTC
	}
	return &dateParser{layout: layout, loc: loc, hasYear: hasYear, now: now}, nil
}

func (p *dateParser) parse(v string) (any, error) {
	t, err := time.ParseInLocation(p.layout, v, p.loc)
	if err != nil {
		return nil, err
	}
	if !p.hasYear {
		// Joda's default year is the current one in Graylog's converter.
		t = time.Date(p.now().In(p.loc).Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	}
	return t, nil
}

// flexLayouts are the forms the flexdate converter reads. Graylog's uses
// Natty, a natural-language date parser ("yesterday at 5pm"); loggate reads
// the common machine forms only (README: Differences).
var flexLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05.000Z0700", "2006-01-02T15:04:05", "2006-01-02 15:04:05.000",
	"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02", "2006/01/02 15:04:05", "2006/01/02",
	time.RFC1123Z, time.RFC1123, time.RFC850, time.RFC822Z, time.RFC822, time.ANSIC, time.UnixDate,
	"Jan _2 15:04:05", "Jan _2 2006 15:04:05", "02/Jan/2006:15:04:05 -0700", "01/02/2006 15:04:05", "01/02/2006",
	"January 2, 2006", "January 2 2006", "2 January 2006", "Jan 2, 2006", "Jan 2 2006",
}

// flexDate reads a date in one of flexLayouts; nothing read is null.
func flexDate(v string, loc *time.Location, now func() time.Time) (any, error) {
	v = strings.TrimSpace(v)
	for _, l := range flexLayouts {
		t, err := time.ParseInLocation(l, v, loc)
		if err != nil {
			continue
		}
		if t.Year() == 0 {
			t = time.Date(now().In(loc).Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
		}
		return t, nil
	}
	return nil, nil
}
