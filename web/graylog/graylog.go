// Package graylog serves an operator's copy of Graylog's built web interface
// (web_interface_dir) at /, the way Graylog's server serves it: the page for
// every interface path, the bundles under /assets/, and /config.js, which
// points the interface at loggate's API. loggate ships none of these files;
// people who have them keep the interface they know while the server under it
// changes.
package graylog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"os"
	"path"
	"slices"
	"strings"
	"time"
)

// Options say where the files are and what /config.js tells the interface.
type Options struct {
	// Dir holds the built interface: index.html (a webpack build), or
	// module.json (the assets folder of Graylog's server package, from which
	// Graylog generates its page). Every file in it is served under /assets/.
	Dir string
	// APIURL returns gl2ServerUrl, the public URI of the API root ending in
	// "/"; asked per request, since a port 0 is known only once bound.
	APIURL func() string
	// RootTimeZone is the root user's time zone (root_timezone).
	RootTimeZone string
}

// ErrNoInterface is a Dir that holds no built interface.
var ErrNoInterface = errors.New("holds neither index.html nor module.json of a built Graylog web interface")

// Handler serves the interface. Paths under the API are not its business:
// the node routes those before they reach it.
type Handler struct {
	files  fs.FS
	assets http.Handler
	index  []byte
	o      Options
	start  time.Time
}

// New reads the interface's page from o.Dir. An unusable directory is an
// error that says what is missing, so that a start with a wrong path stops
// rather than serve a blank page.
func New(o Options) (*Handler, error) {
	st, err := os.Stat(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("web_interface_dir: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("web_interface_dir: %s is not a directory", o.Dir)
	}
	// Confined to the directory: os.DirFS follows symbolic links
	// anywhere, so a link in the directory would serve any file the
	// server may read, to anyone. Links within it still work.
	root, err := os.OpenRoot(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("web_interface_dir: %w", err)
	}
	files := root.FS()
	index, err := page(files)
	if err != nil {
		return nil, fmt.Errorf("web_interface_dir: %s %w", o.Dir, err)
	}
	return &Handler{
		files:  files,
		assets: http.StripPrefix("/assets/", http.FileServerFS(files)),
		index:  index,
		o:      o,
		start:  time.Now(),
	}, nil
}

// page is the interface's page, made from module.json as Graylog's
// IndexHtmlGenerator makes it (a webpack build writes module.json beside its
// own index.html, whose scripts are not under /assets/); a folder with only
// an index.html gets that one, based at "/" so that its relative script
// paths resolve from every interface path.
func page(files fs.FS) ([]byte, error) {
	b, err := fs.ReadFile(files, "module.json")
	if errors.Is(err, fs.ErrNotExist) {
		return builtPage(files)
	}
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("has an unreadable module.json: %w", err)
	}
	if len(m.Files.JS) == 0 {
		return nil, errors.New("has a module.json that names no JavaScript bundle")
	}
	// Vendor bundles (vendor-module.json in Graylog's package) load first.
	var js, css []string
	if vb, err := fs.ReadFile(files, "vendor-module.json"); err == nil {
		var v manifest
		if err := json.Unmarshal(vb, &v); err != nil {
			return nil, fmt.Errorf("has an unreadable vendor-module.json: %w", err)
		}
		js, css = append(js, v.Files.JS...), append(css, v.Files.CSS...)
	}
	js, css = append(js, m.sortedJS()...), append(css, m.Files.CSS...)
	var buf bytes.Buffer
	err = indexTemplate.Execute(&buf, struct{ JS, CSS []string }{assetPaths(js), assetPaths(css)})
	return buf.Bytes(), err
}

// builtPage is a folder's own index.html, with a <base href="/"> unless it
// has a base already.
func builtPage(files fs.FS) ([]byte, error) {
	b, err := fs.ReadFile(files, "index.html")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoInterface
	}
	if err != nil || bytes.Contains(bytes.ToLower(b), []byte("<base ")) {
		return b, err
	}
	i := bytes.Index(bytes.ToLower(b), []byte("<head>"))
	if i < 0 {
		return b, nil
	}
	i += len("<head>")
	return slices.Concat(b[:i], []byte(`<base href="/">`), b[i:]), nil
}

// manifest is the part of Graylog's module.json the page is made from.
type manifest struct {
	Files struct {
		JS     []string `json:"js"`
		CSS    []string `json:"css"`
		Chunks map[string]struct {
			Entry string `json:"entry"`
		} `json:"chunks"`
	} `json:"files"`
}

// sortedJS orders the bundles as Graylog's server does (PluginAssets): the
// polyfill chunk first, then the builtins, the app last. The list in
// module.json has no meaningful order (3.3's names the app first, and its
// stores are then missing when the app starts).
func (m manifest) sortedJS() []string {
	rank := map[string]int{}
	for name, r := range map[string]int{"polyfill": -2, "builtins": -1, "app": 1} {
		if c, ok := m.Files.Chunks[name]; ok && c.Entry != "" {
			rank[c.Entry] = r
		}
	}
	js := slices.Clone(m.Files.JS)
	slices.SortStableFunc(js, func(a, b string) int { return rank[a] - rank[b] })
	return js
}

// assetPaths puts bare file names under /assets/, where they are served.
func assetPaths(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		if strings.HasPrefix(n, "/") {
			out[i] = n
		} else {
			out[i] = "/assets/" + n
		}
	}
	return out
}

var indexTemplate = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html>
  <head>
    <meta charset="UTF-8">
    <meta name="robots" content="noindex, nofollow">
    <title>Graylog Web Interface</title>
    <link rel="shortcut icon" href="/assets/favicon.png">
{{range .CSS}}    <link href="{{.}}" rel="stylesheet">
{{end}}  </head>
  <body>
    <script src="/config.js"></script>
{{range .JS}}    <script src="{{.}}"></script>
{{end}}  </body>
</html>
`))

// configJS is Graylog's /config.js for this server.
func configJS(o Options) ([]byte, error) {
	cfg := map[string]any{
		"gl2ServerUrl":     o.APIURL(),
		"gl2AppPathPrefix": "",
		"rootTimeZone":     o.RootTimeZone,
		"isCloud":          false,
		"pluginUISettings": map[string]any{},
	}
	// Not HTML-escaped, as Graylog writes it: the URL may hold "&".
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(cfg)
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, "window.appConfig = %s;\n", b), nil
}

// isFile reports whether name is a file of the interface (not index.html,
// which every page path is answered with anyway).
func (h *Handler) isFile(name string) bool {
	if name == "" || name == "index.html" {
		return false
	}
	st, err := fs.Stat(h.files, name)
	return err == nil && !st.IsDir()
}

// ServeHTTP answers /config.js, the assets, and the page for every other
// path (the interface routes on the client side).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	// Every answer is of the type it says; the page, which holds the
	// signed-in interface, is not framed by other sites.
	w.Header().Set("X-Content-Type-Options", "nosniff")
	switch p := path.Clean(r.URL.Path); {
	case p == "/config.js":
		b, err := configJS(h.o)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(b)
	case strings.HasPrefix(p, "/assets/"):
		// Files only: no listing of the operator's directories.
		if !h.isFile(strings.TrimPrefix(p, "/assets/")) {
			http.NotFound(w, r)
			return
		}
		h.assets.ServeHTTP(w, r)
	case h.isFile(strings.TrimPrefix(p, "/")):
		// A webpack build's own page loads its bundles from the root.
		http.ServeFileFS(w, r, h.files, strings.TrimPrefix(p, "/"))
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
		http.ServeContent(w, r, "index.html", h.start, bytes.NewReader(h.index))
	}
}
