package decorators

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loggate/loggate/backend/logs/configreq"
	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines"
)

// Graylog 4.0's decorator types, by the class names Graylog registers them
// under (DecoratorBindings, PipelineProcessorModule).
const (
	TypeSyslogSeverity = "org.graylog2.decorators.SyslogSeverityMapperDecorator"
	TypeFormatString   = "org.graylog2.decorators.FormatStringDecorator"
	TypeLinkField      = "org.graylog2.decorators.LinkFieldDecorator"
	TypeLookupTable    = "org.graylog2.decorators.LookupTableDecorator"
	TypePipeline       = "org.graylog.plugins.pipelineprocessor.PipelineProcessorMessageDecorator"
)

// Lookups are the lookup tables the lookup table decorator looks values
// up in; *lookup.Service satisfies it.
type Lookups interface {
	Exists(ctx context.Context, name string) bool
	Lookup(ctx context.Context, table string, key any) (lookup.Result, error)
	Tables() []lookup.Table
}

// Pipelines are the pipelines the pipeline processor decorator runs: the
// service lists them, the interpreter runs one on a message.
type Pipelines interface {
	Pipelines() []pipelines.PipelineSource
	Decorate(ctx context.Context, pipelineID string, msg *messages.Message) []messages.Message
}

// decorator is one built decorator: it decorates one message of an answer
// and returns it (m itself when it leaves it alone, else a new map: m is
// never changed) and the messages it created, which are written after it.
type decorator interface {
	apply(ctx context.Context, m map[string]any) (map[string]any, []map[string]any)
}

// typeInfo is one decorator type: Graylog's descriptor, its configuration
// form and its factory.
type typeInfo struct {
	id, name, humanName, link string
	form                      func(s *Service) configreq.Request
	build                     func(ctx context.Context, s *Service, config map[string]any) (decorator, error)
}

// types are the types in Graylog's binding order; the pipeline decorator
// only when the node runs pipelines.
var types = []typeInfo{
	{id: TypeSyslogSeverity, name: "Syslog Severity Mapper", humanName: "Syslog Severity Mapper", link: "http://docs.graylog.org/",
		form: func(*Service) configreq.Request {
			return configreq.Request{
				{Name: "source_field", Kind: configreq.Text, HumanName: "Source field", Default: "level",
					Description: "The message field which includes the numeric Syslog severity."},
				{Name: "target_field", Kind: configreq.Text, HumanName: "Target field", Default: "severity",
					Description: "The message field that will be created with the mapped severity value."},
			}
		},
		build: buildSyslog},
	{id: TypeFormatString, name: "Format String", humanName: "Format string", link: "http://docs.graylog.org/",
		form: func(*Service) configreq.Request {
			return configreq.Request{
				{Name: "format_string", Kind: configreq.Text, HumanName: "Format String", Default: "${source} - ${message}",
					Description: "The format string used to create the concatenated field."},
				{Name: "require_all_fields", Kind: configreq.Boolean, HumanName: "Require all fields", Default: false,
					Description: "Check this if all fields in the format string need to be present in order to apply this decorator."},
				{Name: "target_field", Kind: configreq.Text, HumanName: "Target field", Default: "message",
					Description: "The message field that will be created with the formatted string."},
			}
		},
		build: buildFormat},
	{id: TypeLookupTable, name: "Lookup Table", humanName: "Lookup Table Decorator", link: "http://docs.graylog.org/",
		form: func(s *Service) configreq.Request {
			var tables []configreq.Choice
			if s.lookups != nil {
				for _, t := range s.lookups.Tables() {
					tables = append(tables, configreq.Choice{Value: t.Name, Label: t.Title})
				}
			}
			slices.SortFunc(tables, func(a, b configreq.Choice) int { return strings.Compare(a.Label, b.Label) })
			return configreq.Request{
				{Name: "source_field", Kind: configreq.Text, HumanName: "Source field", Default: "",
					Description: "The message field which includes the value to look up."},
				{Name: "target_field", Kind: configreq.Text, HumanName: "Target field", Default: "",
					Description: "The message field that will be created with the result of the lookup."},
				{Name: "lookup_table_name", Kind: configreq.Dropdown, HumanName: "Lookup table", Default: "",
					Description: "The lookup table to use.", Choices: tables},
			}
		},
		build: buildLookup},
	{id: TypeLinkField, name: "Hyperlink String", humanName: "Hyperlink string", link: "http://docs.graylog.org/",
		form: func(*Service) configreq.Request {
			return configreq.Request{
				{Name: "link_field", Kind: configreq.Text, HumanName: "Link field", Default: "message",
					Description: "The field that will be transformed into a hyperlink."},
			}
		},
		build: buildLink},
	{id: TypePipeline, name: "Pipeline Processor Decorator", humanName: "Pipeline Processor Decorator",
		link: "http://docs.graylog.org/en/2.0/pages/pipelines.html",
		form: func(s *Service) configreq.Request {
			var choices []configreq.Choice
			for _, p := range s.pipes.Pipelines() { // by title
				if p.ID != nil && p.Title != nil {
					choices = append(choices, configreq.Choice{Value: *p.ID, Label: *p.Title})
				}
			}
			return configreq.Request{
				{Name: "pipeline", Kind: configreq.Dropdown, HumanName: "Pipeline", Default: "",
					Description: "Which pipeline to use for message decoration", Choices: choices},
			}
		},
		build: buildPipeline},
}

// typeOf returns the type with that id that the service offers.
func (s *Service) typeOf(id string) (*typeInfo, bool) {
	for i := range types {
		if types[i].id == id && s.offers(&types[i]) {
			return &types[i], true
		}
	}
	return nil, false
}

// offers reports whether the node runs what the type needs: the pipeline
// decorator needs the pipelines.
func (s *Service) offers(t *typeInfo) bool { return t.id != TypePipeline || s.pipes != nil }

// typeInfoJSON is Graylog's ConfigurableTypeInfo.
type typeInfoJSON struct {
	Type                   string            `json:"type"`
	Name                   string            `json:"name"`
	HumanName              string            `json:"human_name"`
	RequestedConfiguration configreq.Request `json:"requested_configuration"`
	LinkToDocs             string            `json:"link_to_docs"`
}

// Available answers GET /search/decorators/available: every type by its
// id.
func (s *Service) Available() map[string]typeInfoJSON {
	out := map[string]typeInfoJSON{}
	for i := range types {
		t := &types[i]
		if !s.offers(t) {
			continue
		}
		out[t.id] = typeInfoJSON{Type: t.id, Name: t.name, HumanName: t.humanName, RequestedConfiguration: t.form(s), LinkToDocs: t.link}
	}
	return out
}

// configString is Graylog's (String) decorator.config().get(key): a
// missing key or null is ok false, anything but a string an error (the
// cast fails).
func configString(config map[string]any, key string) (string, bool, error) {
	v, ok := config[key]
	if !ok || v == nil {
		return "", false, nil
	}
	s, isString := v.(string)
	if !isString {
		return "", false, fmt.Errorf("%s must be a string", key)
	}
	return s, true, nil
}

// requiredString is requireNonNull((String) config.get(key)).
func requiredString(config map[string]any, key string) (string, error) {
	s, ok, err := configString(config, key)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("%s cannot be null", key)
	}
	return s, nil
}

// nonEmptyString is LookupTableDecorator's isNullOrEmpty check.
func nonEmptyString(config map[string]any, key string) (string, error) {
	s, _, err := configString(config, key)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", fmt.Errorf("missing configuration field: %s", key)
	}
	return s, nil
}
