package functions

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

var syslogLevels = []string{"Emergency", "Alert", "Critical", "Error", "Warning", "Notice", "Informational", "Debug"}

var syslogFacilities = []string{"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "clock",
	"authpriv", "ftp", "ntp", "log audit", "log alert", "cron",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"}

// syslogNumber reads a syslog number from a long or its text.
func syslogNumber(v any) (int, bool) {
	switch x := v.(type) {
	case int64:
		return int(x), true
	case float64:
		return int(x), true
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		return n, err == nil
	}
	return 0, false
}

func syslogName(names []string, v any) string {
	n, ok := syslogNumber(v)
	if !ok || n < 0 || n >= len(names) {
		return "Unknown"
	}
	return names[n]
}

func syslogFunctions() []*lang.Function {
	value := req("value", lang.TObject, "The value to convert")
	return []*lang.Function{
		fn("syslog_level", lang.TString, "Converts a syslog level number to its string representation", func(_ *lang.Context, a lang.Args) (any, error) {
			return syslogName(syslogLevels, a.Get(0)), nil
		}, value),
		fn("syslog_facility", lang.TString, "Converts a syslog facility number to its string representation", func(_ *lang.Context, a lang.Args) (any, error) {
			return syslogName(syslogFacilities, a.Get(0)), nil
		}, value),
		fn("expand_syslog_priority", lang.TMap, "Converts a syslog priority number to its level and facility", func(_ *lang.Context, a lang.Args) (any, error) {
			p, err := priority(a.Get(0))
			if err != nil {
				return nil, err
			}
			return map[string]any{"level": int64(p & 7), "facility": int64(p >> 3)}, nil
		}, value),
		fn("expand_syslog_priority_as_string", lang.TMap, "Converts a syslog priority number to its level and facility string representations", func(_ *lang.Context, a lang.Args) (any, error) {
			p, err := priority(a.Get(0))
			if err != nil {
				return nil, err
			}
			return map[string]any{"level": syslogName(syslogLevels, int64(p&7)), "facility": syslogName(syslogFacilities, int64(p>>3))}, nil
		}, value),
	}
}

func priority(v any) (int, error) {
	if v == nil {
		return 0, fmt.Errorf("priority must not be null")
	}
	n, ok := syslogNumber(v)
	if !ok {
		return 0, fmt.Errorf("invalid syslog priority %v", v)
	}
	return n, nil
}

func debugFunctions(d Deps) []*lang.Function {
	return []*lang.Function{
		fn("debug", lang.TVoid, "Print any passed value as string in the graylog-server log. Note: this will only appear in the log of the graylog-server node that is processing the message you are trying to debug.", func(_ *lang.Context, a lang.Args) (any, error) {
			v := a.Get(0)
			if v == nil {
				d.Logger.Info("PIPELINE DEBUG: Passed value is NULL.")
				return nil, nil
			}
			s, _ := lang.ToString(v)
			d.Logger.Info("PIPELINE DEBUG: " + s)
			return nil, nil
		}, req("value", lang.TObject, "The value to print in the graylog-server log.")),
		fn("metric_counter_inc", lang.TVoid, "Counts the given metric", func(_ *lang.Context, a lang.Args) (any, error) {
			if d.Count != nil {
				d.Count("org.graylog.rulemetrics."+a.String(0, ""), a.Long(1, 1))
			}
			return nil, nil
		}, req("name", lang.TString, "The counter's name"), opt("value", lang.TLong, "Value to increment the counter by, defaults to 1")),
	}
}
