package loggers_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/system/loggers"
	"github.com/loggate/loggate/router/routertest"
)

type recentAnswer struct {
	Messages []struct {
		Message    string            `json:"message"`
		ClassName  string            `json:"class_name"`
		Level      string            `json:"level"`
		Marker     *string           `json:"marker"`
		Timestamp  string            `json:"timestamp"`
		Throwable  *string           `json:"throwable"`
		ThreadName *string           `json:"thread_name"`
		Context    map[string]string `json:"context"`
	} `json:"messages"`
}

func TestRecentMessages(t *testing.T) {
	recent := loggers.NewRecent(4)
	levels := loggers.New(recent.Tee(slog.DiscardHandler))
	levels.KeepRecent(recent)
	if err := levels.SetLevel("loggate", loggers.LevelDebug); err != nil {
		t.Fatal(err)
	}
	log := levels.Logger("loggate.test").With("node", "n1")
	log.Debug("first") // pushed out of the ring of 4
	log.Info("second", slog.Group("req", slog.Int("status", 200)))
	log.Warn("third", "user", "admin")
	log.Error("fourth " + strings.Repeat("x", 3*loggers.MaxRecentText))
	log.Info("fifth")
	h := newRouter(levels)

	tests := []struct {
		name, query string
		status      int
		want        []string // the messages' first word, in order
	}{
		{"default", "", 200, []string{"second", "third", "fourth", "fifth"}},
		{"limit", "?limit=2", 200, []string{"fourth", "fifth"}},
		{"limit zero", "?limit=0", 200, []string{}},
		{"level", "?level=warn", 200, []string{"third", "fourth"}},
		{"level upper case", "?level=ERROR", 200, []string{"fourth"}},
		{"unknown level is all", "?level=nope", 200, []string{"second", "third", "fourth", "fifth"}},
		{"off", "?level=off", 200, []string{}},
		{"negative limit", "?limit=-1", 400, nil},
		{"limit not a number", "?limit=x", 400, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(t, h, principal(t, "loggersmessages:read"), "GET", "/system/loggers/messages/recent"+tc.query)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if tc.status != 200 {
				checkError(t, rec, tc.status, "")
				return
			}
			got := routertest.Decode[recentAnswer](t, rec)
			var words []string
			for _, m := range got.Messages {
				words = append(words, strings.Fields(m.Message)[0])
			}
			if strings.Join(words, " ") != strings.Join(tc.want, " ") {
				t.Errorf("messages %q, want %q", words, tc.want)
			}
		})
	}

	got := routertest.Decode[recentAnswer](t, serve(t, h, principal(t, "loggersmessages:read"), "GET", "/system/loggers/messages/recent"))
	second, fourth := got.Messages[0], got.Messages[2]
	if second.ClassName != "loggate.test" || second.Level != "INFO" || second.Marker != nil || second.Throwable != nil || second.ThreadName == nil {
		t.Errorf("record %+v", second)
	}
	if second.Context["node"] != "n1" || second.Context["req.status"] != "200" || len(second.Context) != 2 {
		t.Errorf("context %v", second.Context)
	}
	if len(second.Timestamp) != len("2006-01-02T15:04:05.000Z") || !strings.HasSuffix(second.Timestamp, "Z") {
		t.Errorf("timestamp %q", second.Timestamp)
	}
	if fourth.Level != "ERROR" || len(fourth.Message) > loggers.MaxRecentText+len("…") || !strings.HasSuffix(fourth.Message, "…") {
		t.Errorf("long message not clipped: level %s, %d bytes", fourth.Level, len(fourth.Message))
	}
}

func TestRecentMessagesPermissionAndDisabled(t *testing.T) {
	recent := loggers.NewRecent(0)
	levels := loggers.New(recent.Tee(slog.DiscardHandler))
	levels.KeepRecent(recent)
	rec := serve(t, newRouter(levels), principal(t, "loggers:read"), "GET", "/system/loggers/messages/recent")
	checkError(t, rec, http.StatusForbidden, "")

	// Without a ring, as Graylog without its memory appender.
	off := loggers.New(slog.DiscardHandler)
	rec = serve(t, newRouter(off), principal(t, "*"), "GET", "/system/loggers/messages/recent")
	checkError(t, rec, http.StatusNotFound, "Memory appender is disabled. Please refer to the example log4j.xml file.")
}

// The ring holds at most its size, however much is logged.
func TestRecentBounded(t *testing.T) {
	recent := loggers.NewRecent(10)
	log := slog.New(recent.Tee(slog.DiscardHandler))
	for range 1000 {
		log.Info("m")
	}
	if n := len(recent.Last(1<<20, loggers.LevelAll)); n != 10 {
		t.Errorf("kept %d records, want 10", n)
	}
}
