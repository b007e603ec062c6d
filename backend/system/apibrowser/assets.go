package apibrowser

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"path"
	"time"

	"github.com/loggate/loggate/router/api"
)

//go:embed assets/index.html assets/app.js assets/app.css
var assetFS embed.FS

// asset is one embedded file of the page.
type asset struct {
	data        []byte
	contentType string
	etag        string
}

var assets = loadAssets()

func loadAssets() map[string]asset {
	types := map[string]string{
		".html": "text/html; charset=utf-8",
		".js":   "text/javascript; charset=utf-8",
		".css":  "text/css; charset=utf-8",
	}
	entries, err := assetFS.ReadDir("assets")
	if err != nil {
		panic(err) // the embedded directory is part of the binary
	}
	out := map[string]asset{}
	for _, e := range entries {
		data, err := assetFS.ReadFile("assets/" + e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(data)
		out[e.Name()] = asset{data: data, contentType: types[path.Ext(e.Name())], etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	}
	return out
}

// pagePolicy allows the page only its own script, style and API: it shows
// server data, and must never run any.
const pagePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
	"form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

// serveAsset answers with an embedded file. Revalidation by ETag keeps
// browsers from running a stale app.js after an upgrade.
func serveAsset(w http.ResponseWriter, r *http.Request, name string) error {
	a, ok := assets[name]
	if !ok {
		return api.Errorf(api.NotFound, "HTTP 404 Not Found")
	}
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	if a.contentType == "text/html; charset=utf-8" {
		h.Set("Content-Security-Policy", pagePolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(a.data))
	return nil
}
