// Package functions is Graylog 4.0's library of pipeline rule functions
// (ProcessorFunctionsModule): conversions, message and stream functions,
// strings, regular expressions, grok, JSON, dates, hashes, encodings, IP
// addresses, URLs, syslog and lookup tables, and parse_cef of Graylog's
// CEF plugin. A function this build does not have is absent from the
// library, so a rule calling it fails to parse, naming it.
package functions

import (
	"cmp"
	"log/slog"
	"slices"
	"time"

	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

// Streams finds the streams rules route to.
type Streams interface {
	// Enabled reports whether a stream with that id exists and is running.
	Enabled(id string) bool
	// EnabledTitled returns the ids of the running streams with exactly
	// that title.
	EnabledTitled(title string) []string
}

// Inputs finds input titles, for from_input.
type Inputs interface {
	Title(id string) (string, bool)
}

// Grok compiles grok expressions against the stored patterns; *grok.Service
// satisfies it. A tracked expression is compiled again when the patterns
// change, so a rule sees pattern changes without being parsed again.
type Grok interface {
	Compile(pattern string) (*grok.Matcher, error)
	Track(pattern string, namedOnly bool) *grok.Tracked
}

// Deps are what the functions reach outside the message. Nil fields make
// the functions that need them fail at run time with a clear error.
type Deps struct {
	Streams Streams
	Inputs  Inputs
	Grok    Grok
	// Lookup are the lookup tables of the lookup_* functions.
	Lookup LookupTables
	// Count adds to the counter metric_counter_inc names.
	Count func(name string, n int64)
	// Size is Graylog's Message.getSize, for traffic_accounting_size.
	Size   func(m *messages.Message) int64
	Logger *slog.Logger
	Now    func() time.Time
}

// Library is the set of functions of one node.
type Library struct {
	byName map[string]*lang.Function
	sorted []*lang.Function
}

// New returns the library.
func New(d Deps) *Library {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	var all []*lang.Function
	for _, group := range [][]*lang.Function{
		conversions(), typeTests(), messageFunctions(d), stringFunctions(), regexFunctions(d),
		jsonFunctions(), dateFunctions(d), hashFunctions(), encodingFunctions(), networkFunctions(),
		syslogFunctions(), debugFunctions(d), lookupFunctions(d), cefFunctions(d),
	} {
		all = append(all, group...)
	}
	slices.SortFunc(all, func(a, b *lang.Function) int { return cmp.Compare(a.Name, b.Name) })
	l := &Library{byName: make(map[string]*lang.Function, len(all)), sorted: all}
	for _, f := range all {
		l.byName[f.Name] = f
	}
	return l
}

// Function returns the function with that name.
func (l *Library) Function(name string) (*lang.Function, bool) {
	f, ok := l.byName[name]
	return f, ok
}

// All returns every function, by name.
func (l *Library) All() []*lang.Function { return l.sorted }

// fn builds a function descriptor.
func fn(name string, ret lang.Type, desc string, call func(c *lang.Context, a lang.Args) (any, error), params ...lang.Param) *lang.Function {
	return &lang.Function{Name: name, Return: ret, Description: desc, Call: call, Params: params}
}

func req(name string, t lang.Type, desc string) lang.Param {
	return lang.Param{Name: name, Type: t, Description: desc}
}

func opt(name string, t lang.Type, desc string) lang.Param {
	return lang.Param{Name: name, Type: t, Optional: true, Description: desc}
}

// msgParam is the optional message parameter of the message functions.
var msgParam = opt("message", lang.TMessage, "The message to use, defaults to '$message'")
