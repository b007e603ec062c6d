package views

import (
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/loggate/loggate/router/api"
)

// checkState checks one entry of a view's state (Graylog's ViewStateDTO)
// against the types Graylog 4.0 gives the properties it knows. Properties it
// does not know are kept unchecked, so that content of a newer web interface
// survives. gjson walks the raw entry because its keys match exactly, as
// Jackson's do, where encoding/json would also bind "Widgets" to widgets.
// checkState adds failures to verr and reports whether the entry passed.
func checkState(verr *api.ValidationError, queryID string, raw json.RawMessage) bool {
	c := &stateCheck{verr: verr, queryID: queryID}
	st := gjson.ParseBytes(raw)
	if !st.IsObject() {
		c.fail("", "must be an object (a view state), got %s", kind(st))
		return false
	}
	st.ForEach(func(key, val gjson.Result) bool {
		switch name := key.Str; name {
		case "selected_fields":
			c.strings(name, val)
		case "static_message_list_id":
			c.str(name, val)
		case "titles":
			c.objectOf(name, val, func(path string, v gjson.Result) { c.objectOf(path, v, c.str) })
		case "widgets":
			c.widgets(name, val)
		case "widget_mapping":
			c.objectOf(name, val, c.strings)
		case "positions":
			c.objectOf(name, val, c.object)
		case "formatting", "display_mode_settings":
			c.object(name, val)
		}
		return true
	})
	return !c.failed
}

// stateCheck collects the failures of one state entry. Every property it
// checks may be null, as in Graylog, except a widget's id and type.
type stateCheck struct {
	verr    *api.ValidationError
	queryID string
	failed  bool
}

func (c *stateCheck) fail(path, format string, args ...any) {
	c.failed = true
	where := fmt.Sprintf("query %q", c.queryID)
	if path != "" {
		where += " " + path
	}
	c.verr.Add("state", "%s %s", where, fmt.Sprintf(format, args...))
}

func (c *stateCheck) object(path string, v gjson.Result) {
	if v.Type != gjson.Null && !v.IsObject() {
		c.fail(path, "must be an object, got %s", kind(v))
	}
}

func (c *stateCheck) str(path string, v gjson.Result) {
	if v.Type != gjson.Null && v.Type != gjson.String {
		c.fail(path, "must be a string, got %s", kind(v))
	}
}

func (c *stateCheck) strings(path string, v gjson.Result) {
	if v.Type == gjson.Null {
		return
	}
	if !v.IsArray() {
		c.fail(path, "must be an array of strings, got %s", kind(v))
		return
	}
	v.ForEach(func(_, e gjson.Result) bool {
		if e.Type != gjson.String {
			c.fail(path, "must be an array of strings, got an element that is %s", kind(e))
			return false
		}
		return true
	})
}

// objectOf checks an object whose every value each checks.
func (c *stateCheck) objectOf(path string, v gjson.Result, each func(string, gjson.Result)) {
	if v.Type == gjson.Null {
		return
	}
	if !v.IsObject() {
		c.fail(path, "must be an object, got %s", kind(v))
		return
	}
	v.ForEach(func(k, e gjson.Result) bool {
		each(path+"."+k.Str, e)
		return true
	})
}

// widgets checks Graylog's WidgetDTO list: id and type are required, the
// configuration is the widget type's business and is kept as sent.
func (c *stateCheck) widgets(path string, v gjson.Result) {
	if v.Type == gjson.Null {
		return
	}
	if !v.IsArray() {
		c.fail(path, "must be an array of widgets, got %s", kind(v))
		return
	}
	i := 0
	v.ForEach(func(_, w gjson.Result) bool {
		at := fmt.Sprintf("%s[%d]", path, i)
		i++
		if !w.IsObject() {
			c.fail(at, "must be an object (a widget), got %s", kind(w))
			return true
		}
		var hasID, hasType bool
		w.ForEach(func(k, f gjson.Result) bool {
			switch name := k.Str; name {
			case "id", "type":
				if f.Type != gjson.String || f.Str == "" {
					c.fail(at+"."+name, "must be a non-empty string, got %s", kind(f))
				}
				hasID, hasType = hasID || name == "id", hasType || name == "type"
			case "filter":
				c.str(at+"."+name, f)
			case "config", "timerange", "query":
				c.object(at+"."+name, f)
			case "streams":
				c.strings(at+"."+name, f)
			}
			return true
		})
		if !hasID {
			c.fail(at+".id", "is missing; every widget needs an id")
		}
		if !hasType {
			c.fail(at+".type", "is missing; every widget needs a type")
		}
		return true
	})
}

// kind names a JSON value's type for a message.
func kind(v gjson.Result) string {
	switch {
	case v.Type == gjson.Null:
		return "null"
	case v.Type == gjson.String && v.Str == "":
		return "an empty string"
	case v.Type == gjson.String:
		return "a string"
	case v.Type == gjson.Number:
		return "a number"
	case v.Type == gjson.True || v.Type == gjson.False:
		return "a boolean"
	case v.IsArray():
		return "an array"
	case v.IsObject():
		return "an object"
	}
	return "nothing"
}

// aggregationDefaults are the properties of Graylog's AggregationConfigDTO
// that it writes as null when a client left them out. Both web interfaces
// read config.visualization_config.trend of every aggregation widget and
// hang when the property is missing rather than null.
var aggregationDefaults = []string{"visualization_config", "formatting_settings"}

// completeWidgets returns a state entry whose aggregation widgets carry
// every property Graylog writes, as null where the client sent none.
func completeWidgets(raw json.RawMessage) json.RawMessage {
	out := []byte(raw)
	for i, w := range gjson.GetBytes(raw, "widgets").Array() {
		cfg := w.Get("config")
		if w.Get("type").Str != "aggregation" || !cfg.IsObject() {
			continue
		}
		for _, name := range aggregationDefaults {
			if cfg.Get(name).Exists() {
				continue
			}
			if set, err := sjson.SetRawBytes(out, fmt.Sprintf("widgets.%d.config.%s", i, name), []byte("null")); err == nil {
				out = set
			}
		}
	}
	return out
}
