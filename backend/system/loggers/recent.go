package loggers

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/loggate/loggate/router/api"
)

// Bounds of what Recent keeps, so that it holds a known amount of memory:
// each message and attribute value is clipped, and a record keeps at most
// MaxRecentAttrs attributes.
const (
	DefaultRecent      = 500
	MaxRecentText      = 2048
	MaxRecentValue     = 512
	MaxRecentAttrs     = 32
	defaultRecentLimit = 500 // Graylog's default limit
)

// RecentRecord is one log record as /system/loggers/messages/recent shows
// it (Graylog's InternalLogMessage).
type RecentRecord struct {
	Message    string            `json:"message"`
	ClassName  string            `json:"class_name"`
	Level      string            `json:"level"`
	Marker     *string           `json:"marker"`
	Timestamp  string            `json:"timestamp"`
	Throwable  *string           `json:"throwable"`
	ThreadName string            `json:"thread_name"`
	Context    map[string]string `json:"context"`

	level Level
}

// Recent keeps the last records logged in a ring, as Graylog's in-memory
// appender does. It keeps only what the log itself holds, clipped.
type Recent struct {
	mu   sync.Mutex
	ring []RecentRecord
	next int // where the next record goes
	full bool
}

// NewRecent returns a ring of n records (DefaultRecent when n <= 0).
func NewRecent(n int) *Recent {
	if n <= 0 {
		n = DefaultRecent
	}
	return &Recent{ring: make([]RecentRecord, n)}
}

// Tee returns next also copying every record it handles into the ring.
func (rc *Recent) Tee(next slog.Handler) slog.Handler {
	return &tee{recent: rc, next: next}
}

// Last returns at most limit of the newest records at level or above,
// oldest first.
func (rc *Recent) Last(limit int, level Level) []RecentRecord {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := rc.next
	if rc.full {
		n = len(rc.ring)
	}
	out := make([]RecentRecord, 0, min(limit, n))
	// Walk back from the newest, then put them in order.
	for i := 0; i < n && len(out) < limit; i++ {
		r := rc.ring[(rc.next-1-i+len(rc.ring))%len(rc.ring)]
		if r.level >= level {
			out = append(out, r)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func (rc *Recent) add(r RecentRecord) {
	rc.mu.Lock()
	rc.ring[rc.next] = r
	rc.next++
	if rc.next == len(rc.ring) {
		rc.next, rc.full = 0, true
	}
	rc.mu.Unlock()
}

// tee copies records into a Recent, with the attributes and groups given
// to WithAttrs and WithGroup, before passing them on.
type tee struct {
	recent *Recent
	next   slog.Handler
	attrs  []slog.Attr // flattened, keys prefixed with their groups
	group  string      // the open group's prefix ("a.b."), "" for none
}

// Enabled lets every level through: the loggers' levels decide what is
// logged, and the ring keeps it even when next would not write it.
func (t *tee) Enabled(context.Context, slog.Level) bool { return true }

func (t *tee) Handle(ctx context.Context, r slog.Record) error {
	rec := RecentRecord{
		Message:    clip(r.Message, MaxRecentText),
		Level:      log4jName(r.Level),
		Timestamp:  r.Time.UTC().Format("2006-01-02T15:04:05.000Z"),
		ThreadName: "",
		Context:    map[string]string{},
		level:      Level(r.Level),
	}
	if r.Time.IsZero() {
		rec.Timestamp = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	put := func(key string, v slog.Value) {
		if key == "logger" && rec.ClassName == "" {
			rec.ClassName = v.String()
			return
		}
		if len(rec.Context) < MaxRecentAttrs {
			rec.Context[clip(key, MaxRecentValue)] = clip(v.String(), MaxRecentValue)
		}
	}
	for _, a := range t.attrs {
		put(a.Key, a.Value)
	}
	r.Attrs(func(a slog.Attr) bool {
		flatten(t.group, a, put)
		return true
	})
	t.recent.add(rec)
	if !t.next.Enabled(ctx, r.Level) {
		return nil
	}
	return t.next.Handle(ctx, r)
}

func (t *tee) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *t
	n.next = t.next.WithAttrs(attrs)
	n.attrs = append([]slog.Attr(nil), t.attrs...)
	for _, a := range attrs {
		flatten(t.group, a, func(k string, v slog.Value) { n.attrs = append(n.attrs, slog.Attr{Key: k, Value: v}) })
	}
	return &n
}

func (t *tee) WithGroup(name string) slog.Handler {
	n := *t
	n.next = t.next.WithGroup(name)
	if name != "" {
		n.group = t.group + name + "."
	}
	return &n
}

// flatten calls put with every leaf of a, its key prefixed with its groups.
func flatten(prefix string, a slog.Attr, put func(string, slog.Value)) {
	v := a.Value.Resolve()
	if v.Kind() != slog.KindGroup {
		if a.Key != "" {
			put(prefix+a.Key, v)
		}
		return
	}
	if a.Key != "" {
		prefix += a.Key + "."
	}
	for _, g := range v.Group() {
		flatten(prefix, g, put)
	}
}

// clip cuts s to at most n bytes, at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// log4jName is the log4j name of a record's level (INFO, WARN, …).
func log4jName(l slog.Level) string {
	return strings.ToUpper([]string{"trace", "debug", "info", "warn", "error", "fatal"}[levelIndex(l)])
}

// logMessagesSummary is Graylog's LogMessagesSummary.
type logMessagesSummary struct {
	Messages []RecentRecord `json:"messages"`
}

// KeepRecent makes /system/loggers/messages/recent answer from rc; without
// it the route answers 404, as Graylog does when its memory appender is
// off.
func (l *Levels) KeepRecent(rc *Recent) { l.recent = rc }

func (h handler) recentMessages(r *http.Request) (any, error) {
	rc := h.levels.recent
	if rc == nil {
		return nil, api.Errorf(api.NotFound, "Memory appender is disabled. Please refer to the example log4j.xml file.")
	}
	q := r.URL.Query()
	limit := defaultRecentLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, api.Errorf(api.Invalid, "limit must be an integer of at least 0, not %q", s)
		}
		limit = n
	}
	// As log4j's Level.toLevel(level, ALL): an unknown name is ALL.
	level := LevelAll
	if s := q.Get("level"); s != "" {
		if lv, err := ParseLevel(s); err == nil {
			level = lv
		}
	}
	if level == LevelOff {
		return logMessagesSummary{Messages: []RecentRecord{}}, nil
	}
	return logMessagesSummary{Messages: rc.Last(limit, level)}, nil
}
