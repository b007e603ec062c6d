package api

import (
	"strings"
	"time"
)

// TimeLayout is how Graylog 4.0 writes instants in JSON: UTC with
// milliseconds and a Z (Jackson's ISO form of a Joda DateTime).
const TimeLayout = "2006-01-02T15:04:05.000Z"

// Time is an instant that marshals in TimeLayout and reads any RFC 3339 form,
// with or without fractional seconds.
type Time struct{ time.Time }

// MarshalJSON writes t in TimeLayout.
func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(TimeLayout) + `"`), nil
}

// UnmarshalJSON reads an RFC 3339 string, also with a numeric offset written
// without a colon (+0000), as Graylog writes some of its dates.
func (t *Time) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" || s == "" {
		t.Time = time.Time{}
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999-0700"} {
		if v, err := time.Parse(layout, s); err == nil {
			t.Time = v
			return nil
		}
	}
	return Errorf(Invalid, "Invalid date %q; use ISO 8601 such as %s", s, TimeLayout)
}
