// Package lookup is Graylog 4.0's lookup tables: data adapters that find
// a value for a key (a CSV file, a DSV file over HTTP, an HTTP JSON API,
// DNS, a writable key-value store), caches in front of them, and the
// tables that join one of each under a name. Pipeline rules, extractors
// and converters look keys up by table name. The three kinds are stored in
// the document store, shared by every node; each node keeps them running
// in memory and sees another node's change within a second.
package lookup

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// Collections of the stored kinds, named as Graylog's.
const (
	TablesCollection   = "lut_tables"
	CachesCollection   = "lut_caches"
	AdaptersCollection = "lut_data_adapters"
	// changes is the change counter every write bumps.
	changes = "lut"
)

// Component is a stored cache or data adapter, as CacheApi and
// DataAdapterApi show it. Config holds "type" and the type's settings.
type Component struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Name        string          `json:"name"`
	ContentPack *string         `json:"content_pack"`
	Config      json.RawMessage `json:"config"`
}

// Type is the "type" of the component's config.
func (c Component) Type() string {
	var t struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(c.Config, &t)
	return t.Type
}

// Table is a stored lookup table, as LookupTableApi shows it.
type Table struct {
	ID                     string  `json:"id"`
	Title                  string  `json:"title"`
	Description            string  `json:"description"`
	Name                   string  `json:"name"`
	CacheID                string  `json:"cache_id"`
	DataAdapterID          string  `json:"data_adapter_id"`
	ContentPack            *string `json:"content_pack"`
	DefaultSingleValue     string  `json:"default_single_value"`
	DefaultSingleValueType string  `json:"default_single_value_type"`
	DefaultMultiValue      string  `json:"default_multi_value"`
	DefaultMultiValueType  string  `json:"default_multi_value_type"`
}

// Result is a LookupResult: the single value, the multi value (a map), a
// string list, whether the lookup failed, and a time to live Graylog
// reports but does not use.
type Result struct {
	Single     any            `json:"single_value"`
	Multi      map[string]any `json:"multi_value"`
	StringList []string       `json:"string_list_value"`
	HasError   bool           `json:"has_error"`
	TTL        int64          `json:"ttl"`
}

// noTTL is LookupResult's "without TTL", Long.MAX_VALUE.
const noTTL = math.MaxInt64

// Empty reports whether nothing was found.
func (r Result) Empty() bool { return r.Single == nil && r.Multi == nil && r.StringList == nil }

// empty is the result of a key not found.
func empty() Result { return Result{TTL: noTTL} }

// failed is the result of a lookup that failed; Graylog caches it for 5 s.
func failed() Result { return Result{HasError: true, TTL: 5000} }

// single is a found scalar: the multi value holds it under "value".
func single(v any) Result {
	return Result{Single: v, Multi: map[string]any{"value": v}, TTL: noTTL}
}

// list is a found string list: Graylog's MongoDB adapter gives its first
// value (or all, joined) as the single value.
func list(vs []string) Result {
	var s any
	if len(vs) == 1 {
		s = vs[0]
	} else {
		s = strings.Join(vs, ",")
	}
	items := make([]any, len(vs))
	for i, v := range vs {
		items[i] = v
	}
	return Result{Single: s, Multi: map[string]any{"value": items}, StringList: vs, TTL: noTTL}
}

// defaults are a table's default values, parsed once.
type defaults struct {
	single any
	multi  map[string]any
	// answer is the multi value of a miss: multi, or single under
	// "value". Results share it; nobody changes it.
	answer map[string]any
}

// Value types of the default values (LookupDefaultValue.Type).
const (
	typeString  = "STRING"
	typeNumber  = "NUMBER"
	typeObject  = "OBJECT"
	typeBoolean = "BOOLEAN"
	typeNull    = "NULL"
)

// parseSingleDefault is LookupDefaultSingleValue.create.
func parseSingleDefault(v, typ string) (any, error) {
	switch strings.ToUpper(typ) {
	case typeString:
		return v, nil
	case typeNumber:
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			return n, nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			//lint:ignore ST1005 shown to users beside the field
			return nil, fmt.Errorf("Couldn't parse number: %q", v)
		}
		return f, nil
	case typeBoolean:
		return strings.EqualFold(strings.TrimSpace(v), "true"), nil
	case typeNull, "":
		return nil, nil
	case typeObject:
		//lint:ignore ST1005 shown to users beside the field
		return nil, fmt.Errorf("Single value cannot be of type OBJECT")
	}
	//lint:ignore ST1005 shown to users beside the field
	return nil, fmt.Errorf("Unknown value type %q; use STRING, NUMBER, BOOLEAN or NULL", typ)
}

// parseMultiDefault is LookupDefaultMultiValue.create: an object or null.
func parseMultiDefault(v, typ string) (map[string]any, error) {
	switch strings.ToUpper(typ) {
	case typeObject:
		var m map[string]any
		if err := json.Unmarshal([]byte(v), &m); err != nil || m == nil {
			//lint:ignore ST1005 shown to users beside the field
			return nil, fmt.Errorf("Couldn't parse JSON object: %q", v)
		}
		return m, nil
	case typeNull, "":
		return nil, nil
	case typeString, typeNumber, typeBoolean:
		//lint:ignore ST1005 shown to users beside the field
		return nil, fmt.Errorf("Multi value cannot be of type %s", strings.ToUpper(typ))
	}
	//lint:ignore ST1005 shown to users beside the field
	return nil, fmt.Errorf("Unknown value type %q; use OBJECT or NULL", typ)
}

// parseDefaults parses a table's default values; the error names the field.
func (t Table) parseDefaults() (defaults, *api.ValidationError) {
	var d defaults
	var v api.ValidationError
	var err error
	if d.single, err = parseSingleDefault(t.DefaultSingleValue, t.DefaultSingleValueType); err != nil {
		v.Add("default_single_value", "%s", err.Error())
	}
	if d.multi, err = parseMultiDefault(t.DefaultMultiValue, t.DefaultMultiValueType); err != nil {
		v.Add("default_multi_value", "%s", err.Error())
	}
	if len(v.Fields) > 0 {
		return d, &v
	}
	switch {
	case d.multi != nil:
		d.answer = d.multi
	case d.single != nil:
		d.answer = map[string]any{"value": d.single}
	}
	return d, nil
}

// apply is LookupResult.withDefaults for a result that found nothing: the
// default single value, and the default multi value or else the single one
// under "value".
func (d defaults) apply(r Result) Result {
	return Result{Single: d.single, Multi: d.answer, HasError: r.HasError, TTL: r.TTL}
}

// Key turns a key of any type into the text adapters look up, as Java's
// String.valueOf does for the usual types.
func Key(k any) string {
	switch v := k.(type) {
	case string:
		return v
	case nil:
		return ""
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e7 {
			return strconv.FormatFloat(v, 'f', 1, 64)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(k)
}
