package search

import (
	"bufio"
	"net/http"
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

// exportWindow is the deepest an export pages: exports stream through
// Elasticsearch's scroll API in Graylog, which the result window does not
// limit.
const exportWindow = 1 << 30

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
			filename = "search-result-" + h.svc.opts.Now().UTC().Format("20060102T150405") + ".csv"
		}
		return h.exportCSV(w, r, u.req, limit, u.fields, filename)
	}
}

// exportCSV writes the CSV of fields of the hits of req, up to limit (0:
// all), as an attachment named filename unless it is "". It reads the
// store in one pass and writes each row before it reads the next, so an
// export holds one row however long it is and costs the same per row
// however deep. The query and permissions are checked before the 200 goes
// out: a CSV cannot carry an error once it has started, so later errors
// are only logged.
func (h *Handler) exportCSV(w http.ResponseWriter, r *http.Request, req Request, limit int, fields []string, filename string) error {
	ctx, release, err := h.svc.gate.admit(r.Context())
	if err != nil {
		return err
	}
	defer release()
	req.Limit = limit
	c, _, err := h.svc.Scan(ctx, req, exportWindow)
	if err != nil {
		return err
	}
	defer c.Close()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	if filename != "" {
		w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
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
