// Package report is `loggate compat report`: from the access log, which
// clients still speak an API release older than the newest, or call paths
// that only older releases had, and how often — so that operators know whom
// to upgrade before they raise compat_min_release.
package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router"
)

// Client is one caller as the access log tells them apart.
type Client struct {
	User, TokenID, UserAgent, Release, Source string
}

// Usage is what one client did with older releases.
type Usage struct {
	Client
	Requests    int
	First, Last time.Time
	Changes     map[string]int // version change → requests that needed it
	Removed     int            // requests for routes the newest release no longer has
}

// Summary is the report: the clients that needed compatibility, most
// requests first, and how many entries were read.
type Summary struct {
	Clients []*Usage
	Read    int
	Skipped int // lines that were not access entries
	// Removed counts the calls of each route the newest release no longer
	// has ("GET /legacy/dashboards"), which only compatibility still serves.
	Removed map[string]int
}

// Read aggregates access log lines. An entry counts when its client spoke
// a release older than the newest or a version change was applied to it.
func Read(r io.Reader, since time.Time) (Summary, error) {
	s := Summary{Removed: map[string]int{}}
	byClient := map[Client]*Usage{}
	lines := &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
	for {
		line, err := lines.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s, fmt.Errorf("read access log: %w", err)
		}
		var e router.AccessEntry
		if line == nil || json.Unmarshal(line, &e) != nil || e.Method == "" {
			s.Skipped++
			continue
		}
		s.Read++
		if e.Time.Before(since) {
			continue
		}
		rel, err := compat.ParseRelease(e.Release)
		if (err != nil || !rel.Before(compat.Latest)) && len(e.Changes) == 0 && len(e.Removed) == 0 {
			continue
		}
		c := Client{User: e.User, TokenID: e.TokenID, UserAgent: e.UserAgent, Release: e.Release, Source: e.ReleaseSource}
		u := byClient[c]
		if u == nil {
			u = &Usage{Client: c, First: e.Time, Changes: map[string]int{}}
			byClient[c] = u
			s.Clients = append(s.Clients, u)
		}
		u.Requests++
		u.First, u.Last = minTime(u.First, e.Time), maxTime(u.Last, e.Time)
		for _, ch := range e.Changes {
			u.Changes[ch]++
		}
		if len(e.Removed) > 0 {
			u.Removed++
		}
		for _, route := range e.Removed {
			s.Removed[route]++
		}
	}
	slices.SortStableFunc(s.Clients, func(a, b *Usage) int { return b.Requests - a.Requests })
	return s, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Write prints the summary as a table.
func (s Summary) Write(w io.Writer) error {
	if len(s.Clients) == 0 {
		_, err := fmt.Fprintf(w, "No client needed compatibility in %d requests: every one spoke the %s API.\n", s.Read, compat.Latest)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REQUESTS\tREMOVED\tRELEASE\tFROM\tUSER\tTOKEN\tUSER AGENT\tLAST SEEN\tNEEDED")
	for _, u := range s.Clients {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", u.Requests, u.Removed, dash(u.Release), dash(u.Source), dash(u.User),
			dash(u.TokenID), dash(u.UserAgent), u.Last.UTC().Format(time.RFC3339), changes(u.Changes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Removed) > 0 {
		fmt.Fprintf(w, "\nRoutes removed in %s and still called (served by compatibility): %s\n", compat.Latest, byUse(s.Removed))
	}
	_, err := fmt.Fprintf(w, "\n%d of %d requests came from %d clients that need compatibility.\n", total(s.Clients), s.Read, len(s.Clients))
	return err
}

func total(us []*Usage) int {
	n := 0
	for _, u := range us {
		n += u.Requests
	}
	return n
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// changes lists the version changes a client needed, most used first.
func changes(m map[string]int) string {
	if len(m) == 0 {
		return "(release only)"
	}
	return byUse(m)
}

// byUse lists counted names, most used first, as "name ×n; …".
func byUse(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return strings.Join(parts, "; ")
}

// Run is `loggate compat report [--log FILE] [--since DURATION]`.
func Run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compat report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("log", "", "access log to read (access_log); - for standard input")
	since := fs.Duration("since", 0, "only requests of the last DURATION (e.g. 168h); default: all")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *path == "" {
		return errors.New("compat report: --log FILE is required (the file access_log names)")
	}
	in := io.Reader(os.Stdin)
	if *path != "-" {
		f, err := os.Open(*path)
		if err != nil {
			return fmt.Errorf("compat report: %w", err)
		}
		defer f.Close()
		in = f
	}
	var from time.Time
	if *since > 0 {
		from = time.Now().Add(-*since)
	}
	s, err := Read(in, from)
	if err != nil {
		return err
	}
	return s.Write(stdout)
}

// maxLine is the longest access log line read; longer ones are skipped.
// loggate's own entries clip what callers send well below it.
const maxLine = 1 << 20

// lineReader reads the lines of a log, a line longer than maxLine as nil,
// having skipped it: one such line must not stop the report.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	long := false
	for {
		part, err := l.r.ReadSlice('\n')
		if !long {
			if len(l.buf)+len(part) > maxLine {
				long, l.buf = true, l.buf[:0]
			} else {
				l.buf = append(l.buf, part...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && (len(l.buf) > 0 || long):
			err = nil
		case err != nil:
			return nil, err
		}
		if long {
			return nil, nil
		}
		return bytes.TrimRight(l.buf, "\r\n"), nil
	}
}
