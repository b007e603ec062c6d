package lookup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/loggate/loggate/router/api"
)

// csvConfig is the csvfile adapter's settings (CSVFileDataAdapter.Config).
type csvConfig struct {
	Type            string `json:"type"`
	Path            string `json:"path"`
	Separator       string `json:"separator"`
	Quotechar       string `json:"quotechar"`
	KeyColumn       string `json:"key_column"`
	ValueColumn     string `json:"value_column"`
	CheckInterval   int64  `json:"check_interval"`
	CaseInsensitive bool   `json:"case_insensitive_lookup"`
}

func newCSVConfig() *csvConfig {
	return &csvConfig{Type: "csvfile", Separator: ",", Quotechar: `"`, CheckInterval: 60}
}

func (c *csvConfig) check(v *api.ValidationError) {
	if strings.TrimSpace(c.Path) == "" {
		v.Add("path", "The path of the CSV file is required.")
	}
	checkChars(v, c.Separator, c.Quotechar)
	if c.KeyColumn == "" {
		v.Add("key_column", "The key column is required.")
	}
	if c.ValueColumn == "" {
		v.Add("value_column", "The value column is required.")
	}
	if c.CheckInterval < 1 {
		v.Add("check_interval", "Check interval must be at least 1 second.")
	}
}

func (c *csvConfig) validate(v *api.ValidationError) {
	f, err := os.Open(c.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		v.Add("path", "The file does not exist.")
	case err != nil:
		v.Add("path", "The file cannot be read.")
	default:
		f.Close()
	}
}

func checkChars(v *api.ValidationError, sep, quote string) {
	if _, ok := firstRune(sep); !ok {
		v.Add("separator", "The separator must be a single character.")
	}
	if _, ok := firstRune(quote); !ok {
		v.Add("quotechar", "The quote character must be a single character.")
	}
}

// keyed is a loaded key-value table.
type keyed struct {
	r               *reloading
	caseInsensitive bool
	presenceOnly    bool
}

func (k *keyed) get(ctx context.Context, key string) (Result, error) {
	m := k.r.table(ctx)
	if len(m) == 0 {
		if f := k.r.failure(); f != "" {
			return failed(), errors.New(f)
		}
	}
	if k.caseInsensitive {
		key = strings.ToLower(key)
	}
	v, ok := m[key]
	switch {
	case !ok:
		return empty(), nil
	case k.presenceOnly:
		return single(true), nil
	}
	return single(v), nil
}

func (k *keyed) failure() string { return k.r.failure() }

func newCSVAdapter(cfg config, e env) adapter {
	c := cfg.(*csvConfig)
	sep, _ := firstRune(c.Separator)
	quote, _ := firstRune(c.Quotechar)
	var seen string // the size and time of the file loaded last
	load := func(context.Context) (map[string]string, error) {
		info, err := os.Stat(c.Path)
		if err != nil {
			return nil, fmt.Errorf("couldn't read CSV file %s: %w", c.Path, err)
		}
		stamp := fmt.Sprint(info.Size(), info.ModTime().UnixNano())
		if stamp == seen {
			return nil, nil
		}
		b, err := readFile(c.Path)
		if err != nil {
			return nil, err
		}
		m, err := csvTable(string(b), sep, quote, c.KeyColumn, c.ValueColumn, c.CaseInsensitive)
		if err != nil {
			return nil, fmt.Errorf("CSV file %s: %w", c.Path, err)
		}
		seen = stamp
		return m, nil
	}
	return &keyed{r: &reloading{load: load, interval: time.Duration(c.CheckInterval) * time.Second, now: e.now},
		caseInsensitive: c.CaseInsensitive}
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limitBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > limitBody {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limitBody)
	}
	return b, nil
}

// csvTable reads a CSV text whose first record names the columns: the
// keys are the key column's values, the values the value column's.
// Records too short for either column are skipped.
func csvTable(text string, sep, quote rune, keyCol, valueCol string, lower bool) (map[string]string, error) {
	recs := parseRecords(text, sep, quote)
	if len(recs) == 0 {
		return nil, errors.New("the file is empty: the first line must name the columns")
	}
	ki, vi := slices.Index(recs[0], keyCol), slices.Index(recs[0], valueCol)
	// The error names the columns asked for, never what the file holds:
	// it is shown to every reader of lookup tables, and the path may name
	// any file the server can read.
	if ki < 0 {
		return nil, fmt.Errorf("couldn't find key column %q in the first line of the file", keyCol)
	}
	if vi < 0 {
		return nil, fmt.Errorf("couldn't find value column %q in the first line of the file", valueCol)
	}
	m := make(map[string]string, len(recs)-1)
	for _, r := range recs[1:] {
		if len(r) <= max(ki, vi) {
			continue
		}
		k := r[ki]
		if lower {
			k = strings.ToLower(k)
		}
		m[k] = r[vi]
	}
	return m, nil
}

// dsvConfig is the dsvhttp adapter's settings (DSVHTTPDataAdapter.Config).
type dsvConfig struct {
	Type            string `json:"type"`
	URL             string `json:"url"`
	RefreshInterval int64  `json:"refresh_interval"`
	LineSeparator   string `json:"line_separator"`
	LineComment     string `json:"ignorechar"`
	Separator       string `json:"separator"`
	Quotechar       string `json:"quotechar"`
	KeyColumn       int    `json:"key_column"`
	ValueColumn     int    `json:"value_column"`
	PresenceOnly    bool   `json:"check_presence_only"`
	CaseInsensitive bool   `json:"case_insensitive_lookup"`
}

func newDSVConfig() *dsvConfig {
	return &dsvConfig{Type: "dsvhttp", RefreshInterval: 60, LineSeparator: "\n", LineComment: "#",
		Separator: ",", Quotechar: `"`, KeyColumn: 0, ValueColumn: 1}
}

func (c *dsvConfig) remoteURL() string { return c.URL }

func (c *dsvConfig) check(v *api.ValidationError) {
	checkURL(v, c.URL)
	checkChars(v, c.Separator, c.Quotechar)
	if c.LineSeparator == "" {
		v.Add("line_separator", "The line separator is required.")
	}
	if c.KeyColumn < 0 {
		v.Add("key_column", "The key column must be 0 or more.")
	}
	if c.ValueColumn < 0 {
		v.Add("value_column", "The value column must be 0 or more.")
	}
	if c.RefreshInterval < 1 {
		v.Add("refresh_interval", "Refresh interval must be at least 1 second.")
	}
}

// checkURL requires an absolute http or https URL.
func checkURL(v *api.ValidationError, raw string) {
	u, err := url.Parse(strings.ReplaceAll(raw, "${key}", "k"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.Add("url", "Invalid URL: an http or https URL is required.")
	}
}

func newDSVAdapter(cfg config, e env) adapter {
	c := cfg.(*dsvConfig)
	load := func(ctx context.Context) (map[string]string, error) {
		b, err := fetch(ctx, e.client, e.permitted, c.URL, nil)
		if err != nil {
			return nil, err
		}
		return dsvTable(string(b), c), nil
	}
	return &keyed{r: &reloading{load: load, interval: time.Duration(c.RefreshInterval) * time.Second, now: e.now, background: true},
		caseInsensitive: c.CaseInsensitive, presenceOnly: c.PresenceOnly}
}

// dsvTable is DSVParser: lines split at the line separator; lines that
// are blank or start with the comment character are skipped; the key and
// value are columns by index.
func dsvTable(text string, c *dsvConfig) map[string]string {
	sep, _ := firstRune(c.Separator)
	quote, _ := firstRune(c.Quotechar)
	m := map[string]string{}
	for line := range strings.SplitSeq(text, c.LineSeparator) {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || (c.LineComment != "" && strings.HasPrefix(line, c.LineComment)) {
			continue
		}
		recs := parseRecords(strings.ReplaceAll(line, "\n", " "), sep, quote)
		if len(recs) == 0 {
			continue
		}
		r := recs[0]
		if len(r) <= c.KeyColumn || (!c.PresenceOnly && len(r) <= c.ValueColumn) {
			continue
		}
		k := r[c.KeyColumn]
		if c.CaseInsensitive {
			k = strings.ToLower(k)
		}
		if c.PresenceOnly {
			m[k] = ""
			continue
		}
		m[k] = r[c.ValueColumn]
	}
	return m
}

// fetch GETs a URL and returns its body; any status but 200 is an error.
// permitted, when set, is asked for the URL and every redirect's.
func fetch(ctx context.Context, client *http.Client, permitted func(context.Context, string) (bool, error), u string, header http.Header) ([]byte, error) {
	if err := checkPermitted(ctx, permitted, u); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if permitted != nil {
		c := *client
		c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return checkPermitted(req.Context(), permitted, req.URL.String())
		}
		client = &c
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limitBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", u, resp.Status)
	}
	if len(b) > limitBody {
		return nil, fmt.Errorf("%s answered more than %d bytes", u, limitBody)
	}
	return b, nil
}

// checkPermitted refuses a URL permitted does not permit, in Graylog's
// words.
func checkPermitted(ctx context.Context, permitted func(context.Context, string) (bool, error), u string) error {
	if permitted == nil {
		return nil
	}
	ok, err := permitted(ctx, u)
	if err != nil {
		return fmt.Errorf("checking the URL whitelist: %w", err)
	}
	if !ok {
		//lint:ignore ST1005 Graylog's words
		return fmt.Errorf("URL <%s> is not whitelisted.", u)
	}
	return nil
}
