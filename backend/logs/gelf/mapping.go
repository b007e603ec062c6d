package gelf

import (
	"math"
	"strconv"

	"github.com/loggate/loggate/backend/logs/messages"
)

// mapFields adds full_message, file, line, level and facility, then every
// other member, in GelfCodec's order: a name set first is never overwritten.
func (d *decoder) mapFields(msg *View, budget Budget) error {
	if v, ok := d.get(spFullMessage); ok {
		if s, ok := text(v); ok {
			msg.Fields = d.set(msg.Fields, ViewField{Key: "full_message", Kind: StringValue, Str: s})
		}
	}
	if v, ok := d.get(spFile); ok {
		if s, ok := text(v); ok {
			msg.Fields = d.set(msg.Fields, ViewField{Key: "file", Kind: StringValue, Str: s})
		}
	}
	if v, ok := d.get(spLine); ok {
		if n, ok := integral(v); ok && n >= 0 {
			msg.Fields = d.set(msg.Fields, ViewField{Key: "line", Kind: IntValue, Int: n})
		}
	}
	if v, ok := d.get(spLevel); ok {
		if n, ok := integral(v); ok && n >= 0 && n <= math.MaxInt32 {
			msg.Fields = d.set(msg.Fields, ViewField{Key: "level", Kind: IntValue, Int: n})
		}
	}
	if v, ok := d.get(spFacility); ok {
		if s, ok := text(v); ok {
			msg.Fields = d.set(msg.Fields, ViewField{Key: "facility", Kind: StringValue, Str: s})
		}
	}
	for i := range d.members {
		m := &d.members[i]
		key, ok := fieldName(m.key)
		if !ok || d.has(msg.Fields, key) {
			continue
		}
		f, ok, err := generic(m.val, budget)
		if err != nil {
			return err
		}
		if ok {
			f.Key = key
			msg.Fields = d.set(msg.Fields, f)
		}
	}
	return nil
}

// fieldName maps a top-level key to its field name, or reports that the key
// is not stored: GelfCodec's skip rules plus Message.addField's key checks.
func fieldName(raw string) (string, bool) {
	if raw == "version" {
		// Not stored by Graylog.
		return "", false
	}
	// The GELF spec asks servers to drop _id; Graylog 4.0 strips its
	// underscore like any other's and stores it as "id", and so does
	// loggate.
	key := raw
	if len(key) > 1 && key[0] == '_' {
		key = key[1:]
	}
	key = messages.Trim(key)
	switch key {
	case "short_message", "host",
		// Set from the GELF fields above; never overwritten.
		"message", "source", "timestamp",
		// Elasticsearch's reserved names (Message.RESERVED_FIELDS).
		"_id", "_ttl", "_source", "_all", "_index", "_type", "_score",
		// Set by the pipeline from stream routing, never by a client.
		"streams":
		return "", false
	}
	return key, validKey(key)
}

// validKey is Message.validKey, ^[\w\.\-@]*$ with Java's ASCII \w, minus the
// empty name Elasticsearch cannot index.
func validKey(key string) bool { return messages.ValidKey(key) }

// generic converts an additional field's value as GelfCodec's field loop
// does: containers as JSON text, numbers as int64 or float64, strings
// trimmed; null, booleans, empty strings and non-finite numbers are skipped.
func generic(v value, budget Budget) (ViewField, bool, error) {
	switch v.kind {
	case kindString:
		s := messages.Trim(v.str)
		return ViewField{Kind: StringValue, Str: s}, s != "", nil
	case kindInt:
		return ViewField{Kind: IntValue, Int: v.i}, true, nil
	case kindFloat:
		return ViewField{Kind: FloatValue, Float: v.f}, !math.IsInf(v.f, 0) && !math.IsNaN(v.f), nil
	case kindContainer:
		if v.dirty {
			s, err := compact(v.raw, budget)
			return ViewField{Kind: StringValue, Str: s}, err == nil, err
		}
		return ViewField{Kind: StringValue, Str: v.raw}, true, nil
	}
	return ViewField{}, false, nil
}

// text reads full_message, file or facility as JsonNode.asText does for
// scalars. Containers are not text here: they fall through to the field
// loop, which stores their JSON, exactly as in Graylog.
func text(v value) (string, bool) {
	var s string
	switch v.kind {
	case kindString:
		s = messages.Trim(v.str)
	case kindInt, kindFloat:
		s = v.raw
	case kindTrue:
		s = "true"
	case kindFalse:
		s = "false"
	}
	return s, s != ""
}

// integral reads level or line as JsonNode.asInt/asLong do: numbers and
// numeric strings, truncated toward zero.
func integral(v value) (int64, bool) {
	switch v.kind {
	case kindInt:
		return v.i, true
	case kindTrue, kindFalse:
		// Jackson's asInt and asLong of a boolean.
		return int64(btoi(v.kind == kindTrue)), true
	case kindFloat:
		return truncate(v.f)
	case kindString:
		s := messages.Trim(v.str)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return truncate(f)
		}
	}
	return 0, false
}

func truncate(f float64) (int64, bool) {
	if math.IsNaN(f) || f >= math.MaxInt64 || f < math.MinInt64 {
		return 0, false
	}
	return int64(f), true
}

// set appends a field; callers have checked the name is free.
func (d *decoder) set(fs []ViewField, f ViewField) []ViewField {
	fs = append(fs, f)
	if d.fields != nil {
		d.fields[f.Key] = struct{}{}
	} else if len(fs) > linearMax {
		d.fields = make(map[string]struct{}, 2*len(fs))
		for i := range fs {
			d.fields[fs[i].Key] = struct{}{}
		}
	}
	return fs
}

func (d *decoder) has(fs []ViewField, key string) bool {
	if d.fields != nil {
		_, ok := d.fields[key]
		return ok
	}
	for i := range fs {
		if fs[i].Key == key {
			return true
		}
	}
	return false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
