// Package extractors owns what Graylog 4.0 keeps on an input to shape the
// messages it receives: extractors (/system/inputs/{inputId}/extractors)
// with their converters, and static fields
// (/system/inputs/{inputId}/staticfields); and it runs both, as the input
// filters of the Message Filter Chain (Graylog's ExtractorFilter and
// StaticFieldFilter).
//
// Both are stored inside the input's document, as Graylog stores them in
// MongoDB: extractors as the array "extractors" in Graylog's persisted
// shape, static fields as the object "static_fields" the input resources
// already show. Deleting an input deletes them with it.
package extractors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// Extractor is a stored extractor, in Graylog's persisted shape (the
// elements of the input document's "extractors" array).
type Extractor struct {
	// ID is a time-based UUID, as Graylog's (not an ObjectId).
	ID             string      `json:"id"`
	Title          string      `json:"title"`
	Order          int64       `json:"order"`
	Type           string      `json:"type"`
	CursorStrategy string      `json:"cursor_strategy"`
	TargetField    string      `json:"target_field"`
	SourceField    string      `json:"source_field"`
	CreatorUserID  string      `json:"creator_user_id"`
	Config         config      `json:"extractor_config"`
	ConditionType  string      `json:"condition_type"`
	ConditionValue string      `json:"condition_value"`
	Converters     []Converter `json:"converters"`
}

// Converter is a stored converter.
type Converter struct {
	Type   string `json:"type"`
	Config config `json:"config"`
}

// Request is Graylog's CreateExtractorRequest, the body of POST and PUT.
// Pointers tell a missing property from an empty one.
type Request struct {
	Title          *string       `json:"title"`
	CutOrCopy      *string       `json:"cut_or_copy"`
	SourceField    *string       `json:"source_field"`
	TargetField    *string       `json:"target_field"`
	ExtractorType  *string       `json:"extractor_type"`
	Config         config        `json:"extractor_config"`
	Converters     converterList `json:"converters"`
	ConditionType  *string       `json:"condition_type"`
	ConditionValue *string       `json:"condition_value"`
	Order          int64         `json:"order"`
}

// converterList is the request's converters: a JSON object keyed by type,
// kept in the order sent, which is the order they run in.
type converterList struct {
	set  bool
	list []Converter
}

func (c *converterList) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("property converters must be an object keyed by converter type")
	}
	c.set = true
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var cfg config
		if err := dec.Decode(&cfg); err != nil {
			return fmt.Errorf("the configuration of converter %s must be an object", key)
		}
		if cfg == nil {
			cfg = config{}
		}
		c.list = append(c.list, Converter{Type: key, Config: cfg})
	}
	_, err := dec.Token()
	return err
}

// Extractor types and the reserved fields an extractor may not target.
const (
	typeRegex        = "regex"
	typeRegexReplace = "regex_replace"
	typeSubstring    = "substring"
	typeSplitIndex   = "split_and_index"
	typeCopyInput    = "copy_input"
	typeGrok         = "grok"
	typeJSON         = "json"
	typeLookupTable  = "lookup_table"
)

var extractorTypes = []string{typeRegex, typeSubstring, typeSplitIndex, typeCopyInput, typeGrok, typeJSON, typeRegexReplace, typeLookupTable}

// javaEnum checks v against Graylog's enum names (case-insensitively, as
// valueOf(v.toUpperCase())) and answers an unknown one as Jackson does: a
// 500 naming the enum class.
func javaEnum(v *string, class string, names ...string) (string, error) {
	if v == nil {
		// Graylog dereferences it: a NullPointerException, a 500.
		return "", api.Errorf(api.Internal, "")
	}
	l := strings.ToLower(*v)
	for _, n := range names {
		if n == l {
			return n, nil
		}
	}
	return "", api.Errorf(api.Internal, "No enum constant %s.%s", class, strings.ToUpper(*v))
}

// validate checks a request as Graylog's resource does and returns the
// extractor it describes (without id and creator).
func (r Request) validate() (Extractor, error) {
	for _, f := range []struct {
		v    *string
		name string
	}{{r.Title, "title"}, {r.SourceField, "sourceField"}, {r.TargetField, "targetField"}, {r.ExtractorType, "extractorType"}, {r.ConditionValue, "conditionValue"}} {
		if f.v == nil {
			return Extractor{}, api.Errorf(api.Invalid, "Null %s", f.name)
		}
	}
	if r.Config == nil {
		return Extractor{}, api.Errorf(api.Invalid, "Null extractorConfig")
	}
	if !r.Converters.set {
		return Extractor{}, api.Errorf(api.Invalid, "Null converters")
	}
	cursor, err := javaEnum(r.CutOrCopy, "org.graylog2.plugin.inputs.Extractor.CursorStrategy", "cut", "copy")
	if err != nil {
		return Extractor{}, err
	}
	typ, err := javaEnum(r.ExtractorType, "org.graylog2.plugin.inputs.Extractor.Type", extractorTypes...)
	if err != nil {
		return Extractor{}, err
	}
	cond, err := javaEnum(r.ConditionType, "org.graylog2.plugin.inputs.Extractor.ConditionType", "none", "string", "regex")
	if err != nil {
		return Extractor{}, err
	}
	if messages.Unsettable(*r.TargetField) {
		return Extractor{}, api.Errorf(api.Invalid, "You cannot apply an extractor on reserved field [%s].", *r.TargetField)
	}
	convs := r.Converters.list
	if convs == nil {
		convs = []Converter{}
	}
	return Extractor{
		Title: *r.Title, Order: r.Order, Type: typ, CursorStrategy: cursor, TargetField: *r.TargetField,
		SourceField: *r.SourceField, Config: r.Config, ConditionType: cond, ConditionValue: *r.ConditionValue,
		Converters: convs,
	}, nil
}
