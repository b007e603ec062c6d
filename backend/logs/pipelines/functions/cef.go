package functions

import (
	"github.com/loggate/loggate/backend/logs/cef"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

// cefFunctions is parse_cef, which Graylog 4.0 ships in its CEF plugin
// (org.graylog.plugins.cef).
func cefFunctions(d Deps) []*lang.Function {
	return []*lang.Function{
		fn("parse_cef", lang.TMap, `Parse any CEF formatted string into it's fields. This is the CEF string (starting with "CEF:") without a syslog envelope.`, func(_ *lang.Context, a lang.Args) (any, error) {
			s := a.String(0, "")
			if s == "" {
				return nil, nil
			}
			ev, err := cef.Parse(s)
			if err != nil {
				// Graylog logs the string and returns null.
				d.Logger.Error("Error while parsing CEF message", "cef", s, "error", err)
				return nil, nil
			}
			out := ev.Fields(a.Bool(1, false))
			// The extension's keys win over the header's, as in Graylog.
			for k, v := range map[string]any{
				"cef_version": ev.Version, "device_vendor": ev.DeviceVendor, "device_product": ev.DeviceProduct,
				"device_version": ev.DeviceVersion, "device_event_class_id": ev.DeviceEventClassID,
				"name": ev.Name, "severity": ev.Severity,
			} {
				if _, ok := out[k]; !ok {
					out[k] = v
				}
			}
			return out, nil
		}, req("cef_string", lang.TString, "The CEF string to parse"),
			req("use_full_names", lang.TBoolean, "Use full field names for CEF extensions")),
	}
}
