package search

import (
	"bufio"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// DefaultBatchSize is how many messages an export reads per store call
// (batch_size).
const DefaultBatchSize = 500

// MaxBatchSize bounds batch_size and chunk_size: a batch is what an export
// holds in memory at once.
const MaxBatchSize = 10000

// exportWindow is the deepest an aggregation pages.
const exportWindow = 1 << 30

// scanWindow is the window of an export's scan: exports stream through
// Elasticsearch's scroll API in Graylog, which the result window does not
// limit, so any offset and limit (each at most a Java int) is a scan.
const scanWindow = math.MaxInt

// exportHandler serves the CSV forms of a universal search: attachment is
// true for …/export, which adds Content-Disposition.
func (h *Handler) exportHandler(kind string, attachment bool) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		u, err := h.parseUniversal(r, kind)
		if err != nil {
			return err
		}
		if u.fields == nil {
			return api.Errorf(api.Invalid, "Missing required parameter `fields`")
		}
		// batch_size is checked and otherwise ignored: the store pages a
		// scan by itself.
		if _, err := api.IntParam(r.URL.Query(), "batch_size", DefaultBatchSize, 1, MaxBatchSize); err != nil {
			return err
		}
		limit := 0 // all
		if r.URL.Query().Get("limit") != "" {
			limit = u.req.Limit
		}
		filename := ""
		if attachment {
			filename = exportFilename(kind, r.URL.Query())
		}
		return h.exportCSV(w, r, u.req, limit, u.fields, filename)
	}
}

// exportFilename is the attachment name Graylog gives a universal search
// export: graylog-search-result-relative-<range>.csv,
// graylog-search-result-absolute-<from>-<to>.csv or
// graylog-search-result-keyword-<keyword>.csv.
func exportFilename(kind string, q url.Values) string {
	name := "graylog-search-result-" + kind + "-"
	switch kind {
	case "relative":
		name += relativeRange(q)
	case "absolute":
		name += q.Get("from") + "-" + q.Get("to")
	default:
		name += q.Get("keyword")
	}
	return name + ".csv"
}

// exportCSV writes the CSV of fields of the hits of req, up to limit (0:
// all), as an attachment named filename unless it is "". It reads the
// store in one pass and writes each row before it reads the next, so an
// export holds one row however long it is and costs the same per row
// however deep. The query and permissions are checked before the 200 goes
// out: a CSV cannot carry an error once it has started, so later errors
// are only logged.
func (h *Handler) exportCSV(w http.ResponseWriter, r *http.Request, req Request, limit int, fields []string, filename string) error {
	w, ctx, done, err := h.admitWriting(r.Context(), w)
	if err != nil {
		return err
	}
	defer done()
	req.Limit = limit
	c, _, err := h.svc.Scan(ctx, req, scanWindow)
	if err != nil {
		return err
	}
	defer c.Close()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	if filename != "" {
		disposition := mime.FormatMediaType("attachment", map[string]string{"filename": filename})
		if disposition == "" {
			disposition = "attachment"
		}
		w.Header().Set("Content-Disposition", disposition)
	}
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	writeCSVRow(bw, fields)
	row := make([]string, len(fields))
	for {
		hit, ok := c.Next()
		if !ok {
			return api.AfterStart(c.Err())
		}
		for i, f := range fields {
			row[i] = ""
			if v, ok := hit.Message.Get(f); ok {
				row[i] = messages.FormatValue(v)
			}
		}
		writeCSVRow(bw, row)
	}
}

// writeCSVRow writes one row with every value quoted, as Graylog's
// opencsv writer does.
func writeCSVRow(w *bufio.Writer, row []string) {
	for i, v := range row {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteByte('"')
		w.WriteString(strings.ReplaceAll(v, `"`, `""`))
		w.WriteByte('"')
	}
	w.WriteByte('\n')
}
