package lang

// Type is a static type of the rule language, named as Graylog names it in
// messages (Java's simple class names) and in the function listing (the
// fully qualified ones).
type Type int

// The types values of the language have. Their Go forms at run time are in
// the comments.
const (
	TObject   Type = iota // any of the below, or nil
	TString               // string
	TLong                 // int64
	TDouble               // float64
	TBoolean              // bool
	TDateTime             // time.Time
	TPeriod               // Period
	TDuration             // time.Duration
	TMap                  // map[string]any, or *MatchResult
	TList                 // []any
	TMessage              // *Message
	TIPAddr               // netip.Addr
	TJSON                 // JSONNode
	TURL                  // *url.URL
	TVoid                 // nothing
)

var typeNames = [...]struct{ simple, class string }{
	TObject:   {"Object", "java.lang.Object"},
	TString:   {"String", "java.lang.String"},
	TLong:     {"Long", "java.lang.Long"},
	TDouble:   {"Double", "java.lang.Double"},
	TBoolean:  {"Boolean", "java.lang.Boolean"},
	TDateTime: {"DateTime", "org.joda.time.DateTime"},
	TPeriod:   {"Period", "org.joda.time.Period"},
	TDuration: {"Duration", "org.joda.time.Duration"},
	TMap:      {"Map", "java.util.Map"},
	TList:     {"List", "java.util.List"},
	TMessage:  {"Message", "org.graylog2.plugin.Message"},
	TIPAddr:   {"IpAddress", "org.graylog.plugins.pipelineprocessor.functions.ips.IpAddress"},
	TJSON:     {"JsonNode", "com.fasterxml.jackson.databind.JsonNode"},
	TURL:      {"URL", "org.graylog.plugins.pipelineprocessor.functions.urls.URL"},
	TVoid:     {"Void", "java.lang.Void"},
}

func (t Type) String() string { return typeNames[t].simple }

// Class is the Java class name Graylog lists for the type.
func (t Type) Class() string { return typeNames[t].class }

// assignable reports whether a value of static type from may be passed
// where to is wanted: Object takes anything, anything else only itself.
func assignable(to, from Type) bool { return to == TObject || to == from }
