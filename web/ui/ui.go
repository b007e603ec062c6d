// Package ui serves loggate's own web interface at /: a page that is a pure
// client of the public /api/ (it logs in with a session as Graylog's
// interface does), embedded in the binary so that nothing else is needed
// and nothing is fetched from elsewhere at run time.
//
// There is no build step: the application is plain ES modules (app/) on
// vendored Preact, htm and uPlot (vendor/, see vendor/VERSIONS). Every file
// is served under /ui/<version>/, where the version is a hash of all the
// files, so browsers may keep them for a year; the page itself, served for
// every other path (Graylog 4.0's page URLs: /search, /streams,
// /system/users/tokens/{userId}, …), is never cached.
package ui

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
)

//go:embed index.html app vendor
var files embed.FS

// Prefix is where the interface's files are served, followed by the version.
const Prefix = "/ui/"

// file is one embedded file, ready to serve.
type file struct {
	body, gz []byte
	ctype    string
}

// Handler serves the interface.
type Handler struct {
	base  string // Prefix + version + "/"
	files map[string]*file
	page  *file
	csp   string
}

// New reads and compresses the embedded files once.
func New() (*Handler, error) {
	h := &Handler{files: map[string]*file{}}
	sum := sha256.New()
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == "index.html" {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		sum.Write([]byte(p))
		sum.Write(b)
		h.files[p] = newFile(b, contentType(p))
		return nil
	})
	if err != nil {
		return nil, err
	}
	h.base = Prefix + hex.EncodeToString(sum.Sum(nil))[:12] + "/"
	page, err := files.ReadFile("index.html")
	if err != nil {
		return nil, err
	}
	page = bytes.ReplaceAll(page, []byte("{{PRELOAD}}"), h.preloads())
	page = bytes.ReplaceAll(page, []byte("{{BASE}}"), []byte(h.base))
	h.page = newFile(page, "text/html; charset=utf-8")
	h.csp = policy(page)
	return h, nil
}

// preloads are links that fetch every module at once, rather than each
// only once the module importing it has arrived.
func (h *Handler) preloads() []byte {
	names := make([]string, 0, len(h.files))
	for p := range h.files {
		if path.Ext(p) == ".js" {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	var b bytes.Buffer
	for i, p := range names {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, `<link rel="modulepreload" href="{{BASE}}%s">`, p)
	}
	return b.Bytes()
}

// policy is the page's Content-Security-Policy: scripts only from loggate
// itself and the page's one inline script (the import map), by its hash;
// connections only to loggate. That the page names no other origin is
// what keeps it from loading anything from a CDN.
func policy(page []byte) string {
	var hashes []string
	rest := page
	for {
		i := bytes.Index(rest, []byte(`<script type="importmap">`))
		if i < 0 {
			break
		}
		rest = rest[i+len(`<script type="importmap">`):]
		j := bytes.Index(rest, []byte("</script>"))
		s := sha256.Sum256(rest[:j])
		hashes = append(hashes, "'sha256-"+base64.StdEncoding.EncodeToString(s[:])+"'")
		rest = rest[j:]
	}
	return "default-src 'self'; script-src 'self' " + strings.Join(hashes, " ") +
		"; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"
}

func newFile(b []byte, ctype string) *file {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	f := &file{body: b, ctype: ctype}
	if buf.Len() < len(b) {
		f.gz = buf.Bytes()
	}
	return f
}

func contentType(p string) string {
	if strings.HasPrefix(path.Base(p), "LICENSE") {
		return "text/plain; charset=utf-8"
	}
	switch path.Ext(p) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case "":
		return "text/plain; charset=utf-8" // VERSIONS, LICENSE.*
	}
	if t := mime.TypeByExtension(path.Ext(p)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// Base is the path the files are served under, /ui/<version>/.
func (h *Handler) Base() string { return h.base }

// Size is what the interface ships, compressed as it is sent: the page and
// every file.
func (h *Handler) Size() (raw, gzipped int) {
	for _, f := range append([]*file{h.page}, values(h.files)...) {
		raw += len(f.body)
		if f.gz != nil {
			gzipped += len(f.gz)
		} else {
			gzipped += len(f.body)
		}
	}
	return raw, gzipped
}

func values(m map[string]*file) []*file {
	out := make([]*file, 0, len(m))
	for _, f := range m {
		out = append(out, f)
	}
	return out
}

// ServeHTTP serves a file under the current version, 404 for any other
// path under Prefix, and the page for everything else.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	if strings.HasPrefix(r.URL.Path, Prefix) {
		f := h.files[strings.TrimPrefix(r.URL.Path, h.base)]
		if f == nil || !strings.HasPrefix(r.URL.Path, h.base) {
			// An old version's file, or none: not the page, which a
			// module script would take for broken JavaScript.
			hdr.Set("Cache-Control", "no-cache")
			http.NotFound(w, r)
			return
		}
		hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.write(w, r, f)
		return
	}
	if r.URL.Path == "/favicon.ico" {
		hdr.Set("Cache-Control", "public, max-age=86400")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("Content-Security-Policy", h.csp)
	hdr.Set("X-Frame-Options", "DENY")
	h.write(w, r, h.page)
}

func (h *Handler) write(w http.ResponseWriter, r *http.Request, f *file) {
	hdr := w.Header()
	hdr.Set("Content-Type", f.ctype)
	hdr.Add("Vary", "Accept-Encoding")
	body := f.body
	if f.gz != nil && acceptsGzip(r) {
		hdr.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") && !refused(params) {
			return true
		}
	}
	return false
}

// refused reports whether an Accept-Encoding entry's parameters give it a
// weight of zero: "q=0", "Q=0.000" (RFC 9110 §12.4.2; names are
// case-insensitive).
func refused(params string) bool {
	for _, p := range strings.Split(params, ";") {
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q == 0
		}
	}
	return false
}
