package report

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

const sample = `{"time":"2026-11-20T10:00:00Z","method":"GET","path":"/api/users/GM/tokens","status":200,"release":"2.4","release_source":"token","user":"GM","token_id":"t1","user_agent":"icinga/2","changes":["4.0 GET /users/{user}/tokens","3.3 GET /users/{user}/tokens"]}
{"time":"2026-11-20T11:00:00Z","method":"GET","path":"/api/users/GM/tokens","status":200,"release":"2.4","release_source":"token","user":"GM","token_id":"t1","user_agent":"icinga/2","changes":["4.0 GET /users/{user}/tokens","3.3 GET /users/{user}/tokens"]}
{"time":"2026-11-20T12:00:00Z","method":"GET","path":"/api/cluster","status":200,"release":"4.0","release_source":"default","user":"admin"}
{"time":"2026-11-20T12:30:00Z","method":"PUT","path":"/api/users/jane/password","status":204,"release":"4.0","release_source":"default","user":"jane","user_agent":"curl/8","changes":["4.0 PUT /users/{user}/password"]}
{"time":"2026-11-21T09:00:00Z","method":"GET","path":"/api/streams","status":200,"release":"1.3","release_source":"listener","user":"old","user_agent":"grafana"}
{"time":"2026-11-20T13:00:00Z","method":"GET","path":"/api/legacy/dashboards","status":200,"release":"4.0","release_source":"default","user":"wall","user_agent":"dashing/1","changes":["4.0 GET /legacy/dashboards"],"removed":["GET /legacy/dashboards"]}
not json at all
`

func TestRead(t *testing.T) {
	s, err := Read(strings.NewReader(sample), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Read != 6 || s.Skipped != 1 || len(s.Clients) != 4 {
		t.Fatalf("read %d, skipped %d, %d clients: %+v", s.Read, s.Skipped, len(s.Clients), s.Clients)
	}
	top := s.Clients[0]
	if top.User != "GM" || top.TokenID != "t1" || top.Requests != 2 || top.Changes["4.0 GET /users/{user}/tokens"] != 2 ||
		!top.Last.Equal(time.Date(2026, 11, 20, 11, 0, 0, 0, time.UTC)) {
		t.Errorf("top client: %+v", top)
	}
	var out bytes.Buffer
	if err := s.Write(&out); err != nil {
		t.Fatal(err)
	}
	if s.Removed["GET /legacy/dashboards"] != 1 || s.Clients[3].User != "wall" || s.Clients[3].Removed != 1 {
		t.Errorf("removed routes: %v, client %+v", s.Removed, s.Clients[3])
	}
	for _, want := range []string{"icinga/2", "curl/8", "grafana", "dashing/1", "(release only)", "5 of 6 requests came from 4 clients",
		"Routes removed in 4.0 and still called (served by compatibility): GET /legacy/dashboards ×1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "admin") {
		t.Errorf("a 4.0 client without changes is in the report:\n%s", out.String())
	}

	recent, _ := Read(strings.NewReader(sample), time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC))
	if len(recent.Clients) != 1 || recent.Clients[0].User != "old" {
		t.Errorf("since the 21st: %+v", recent.Clients)
	}
	none, _ := Read(strings.NewReader(`{"time":"2026-11-20T12:00:00Z","method":"GET","path":"/api/cluster","status":200,"release":"4.0"}`), time.Time{})
	out.Reset()
	_ = none.Write(&out)
	if !strings.Contains(out.String(), "No client needed compatibility") {
		t.Errorf("empty report: %s", out.String())
	}
}

func FuzzRead(f *testing.F) {
	for _, line := range strings.Split(sample, "\n") {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Read(strings.NewReader(in), time.Time{})
		if err != nil {
			return
		}
		n := 0
		for _, c := range s.Clients {
			n += c.Requests
		}
		if n > s.Read {
			t.Fatalf("%d requests counted from %d entries", n, s.Read)
		}
		_ = s.Write(&bytes.Buffer{})
	})
}

// TestReadSkipsOverlongLines: a line longer than the reader takes is
// skipped and counted, and the lines after it are read: one such line used
// to fail every report (and the web interface's compatibility page) until
// the log was rotated.
func TestReadSkipsOverlongLines(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(sample), "\n")
	long := `{"time":"2026-11-20T10:30:00Z","method":"GET","path":"/api/cluster","user_agent":"` + strings.Repeat("<", maxLine) + `"}`
	log := lines[0] + "\n" + long + "\r\n" + strings.Join(lines[1:], "\n") // the last line without its newline
	s, err := Read(strings.NewReader(log), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Read != 6 || s.Skipped != 2 || s.Clients[0].Requests != 2 {
		t.Errorf("read %d, skipped %d, top client %+v; want 6 read, the long line and the bad one skipped", s.Read, s.Skipped, s.Clients[0])
	}
}
