package functions

import (
	"fmt"
	"time"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/joda"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

func dateFunctions(d Deps) []*lang.Function {
	tz := opt("timezone", lang.TString, "The timezone to apply to the date, defaults to UTC")
	pattern := req("pattern", lang.TString, "The pattern to parse the date with, see http://www.joda.org/joda-time/apidocs/org/joda/time/format/DateTimeFormat.html")
	// Joda's parser is lenient where its printer is exact: a fraction of
	// any length, one or two digits for MM, dd, HH, mm, ss, "Z" for a
	// zero offset.
	pattern.Prepare = func(v any) (any, error) {
		l, err := joda.Translate(v.(string), joda.Options{ZuluOffsets: true, AnyFraction: true, Lenient: true})
		return l.Go, err
	}
	format := req("format", lang.TString, "The format string to use, see http://www.joda.org/joda-time/apidocs/org/joda/time/format/DateTimeFormat.html")
	format.Prepare = func(v any) (any, error) {
		l, err := joda.Translate(v.(string), joda.Options{})
		return l.Go, err
	}
	// format_date's zone is DateTimeZone.forID: exact ids and offsets
	// only, an unknown one an error (when the rule is parsed, for a
	// constant).
	formatZone := opt("timezone", lang.TString, "The timezone to apply to the date, defaults to UTC")
	formatZone.Prepare = func(v any) (any, error) {
		id, ok := v.(string)
		if !ok {
			return nil, errWrongType("timezone", v)
		}
		return forID(id)
	}
	period := func(name, desc string, f func(n int64) lang.Period) *lang.Function {
		p := fn(name, lang.TPeriod, desc, func(_ *lang.Context, a lang.Args) (any, error) {
			return f(a.Long(0, 0)), nil
		}, req("value", lang.TLong, "The number of "+name+" in the period"))
		p.Pure = true
		return p
	}
	return []*lang.Function{
		fn("now", lang.TDateTime, "Returns the current date and time", func(c *lang.Context, a lang.Args) (any, error) {
			return d.Now().In(zone(a.String(0, "UTC"))), nil
		}, tz),
		fn("parse_date", lang.TDateTime, "Parses a date and time from the given string, according to a strict pattern", func(_ *lang.Context, a lang.Args) (any, error) {
			layout, ok := a.Get(1).(string)
			if !ok {
				return nil, errNullPattern
			}
			if a.Get(0) == nil {
				return nil, nil
			}
			loc := zone(a.String(3, "UTC"))
			t, err := time.ParseInLocation(layout, a.String(0, ""), loc)
			if err != nil {
				//lint:ignore ST1005 Graylog's (Joda's) words
				return nil, fmt.Errorf("Invalid format: %q", a.String(0, ""))
			}
			return t, nil
		}, req("value", lang.TString, "Date string to parse"), pattern,
			opt("locale", lang.TString, "The locale to parse the date with, see https://docs.oracle.com/javase/8/docs/api/java/util/Locale.html"), tz),
		fn("parse_unix_milliseconds", lang.TDateTime, "Converts a UNIX millisecond timestamp into a date", func(_ *lang.Context, a lang.Args) (any, error) {
			if a.Get(0) == nil {
				return nil, nil
			}
			return time.UnixMilli(a.Long(0, 0)).In(zone(a.String(1, "UTC"))), nil
		}, req("value", lang.TLong, "UNIX millisecond timestamp to parse"), tz),
		fn("format_date", lang.TString, "Formats a date using the given format string", func(_ *lang.Context, a lang.Args) (any, error) {
			if a.Get(0) == nil || a.Get(1) == nil {
				return nil, nil
			}
			t, ok := a.Get(0).(time.Time)
			if !ok {
				return nil, errWrongType("value", a.Get(0))
			}
			layout, _ := a.Get(1).(string)
			loc, ok := a.Get(2).(*time.Location)
			if !ok {
				loc = time.UTC
			}
			return t.In(loc).Format(layout), nil
		}, req("value", lang.TDateTime, "The date to format"), format, formatZone),
		period("years", "Create a period with a specified number of years.", func(n int64) lang.Period { return lang.Period{Years: int(n)} }),
		period("months", "Create a period with a specified number of months.", func(n int64) lang.Period { return lang.Period{Months: int(n)} }),
		period("weeks", "Create a period with a specified number of weeks.", func(n int64) lang.Period { return lang.Period{Weeks: int(n)} }),
		period("days", "Create a period with a specified number of days.", func(n int64) lang.Period { return lang.Period{Days: int(n)} }),
		period("hours", "Create a period with a specified number of hours.", func(n int64) lang.Period { return lang.Period{Hours: int(n)} }),
		period("minutes", "Create a period with a specified number of minutes.", func(n int64) lang.Period { return lang.Period{Minutes: int(n)} }),
		period("seconds", "Create a period with a specified number of seconds.", func(n int64) lang.Period { return lang.Period{Seconds: int(n)} }),
		period("millis", "Create a period with a specified number of millis.", func(n int64) lang.Period { return lang.Period{Millis: int(n)} }),
		fn("period", lang.TPeriod, "Parses an ISO 8601 period from the specified string.", func(_ *lang.Context, a lang.Args) (any, error) {
			p, err := indexsets.ParsePeriod(a.String(0, ""))
			if err != nil {
				//lint:ignore ST1005 Graylog's (Joda's) words
				return nil, fmt.Errorf("Invalid format: %q", a.String(0, ""))
			}
			return p, nil
		}, req("value", lang.TString, "The string representation of the period. For example, P1D is one day, PT1H is one hour.")),
		flexDateFunction(d, tz),
	}
}
