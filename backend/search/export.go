package search

import (
	"bufio"
	"context"
	"net/http"
	"strings"

	"github.com/loggate/loggate/backend/api"
	"github.com/loggate/loggate/backend/messages"
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
		batch, err := api.IntParam(r.URL.Query(), "batch_size", DefaultBatchSize, 1, MaxBatchSize)
		if err != nil {
			return err
		}
		limit := 0 // all
		if r.URL.Query().Get("limit") != "" {
			limit = u.req.Limit
		}
		// Validate the query and permissions before the 200 goes out: a
		// CSV cannot carry an error once it has started.
		first := u.req
		first.Limit = 0
		if _, err := h.svc.Search(r.Context(), first); err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		if attachment {
			w.Header().Set("Content-Disposition", `attachment; filename="search-result-`+h.svc.opts.Now().UTC().Format("20060102T150405")+`.csv"`)
		}
		w.WriteHeader(http.StatusOK)
		bw := bufio.NewWriter(w)
		defer bw.Flush()
		writeCSVRow(bw, u.fields)
		return h.svc.each(r.Context(), u.req, batch, limit, func(m messages.Message) error {
			row := make([]string, len(u.fields))
			for i, f := range u.fields {
				if v, ok := m.Get(f); ok {
					row[i] = messages.FormatValue(v)
				}
			}
			writeCSVRow(bw, row)
			return nil
		})
	}
}

// each runs r page by page and calls fn for every hit, up to limit (0: all).
// Errors after the response started are returned for logging only.
func (s *Service) each(ctx context.Context, r Request, batch, limit int, fn func(messages.Message) error) error {
	seen := 0
	for {
		r.Limit = batch
		if limit > 0 && limit-seen < batch {
			r.Limit = limit - seen
		}
		if r.Limit <= 0 {
			return nil
		}
		resp, err := s.searchWindow(ctx, r, exportWindow)
		if err != nil {
			return err
		}
		for _, h := range resp.Result.Hits {
			if err := fn(h.Message); err != nil {
				return err
			}
		}
		seen += len(resp.Result.Hits)
		r.Offset += len(resp.Result.Hits)
		if len(resp.Result.Hits) < r.Limit {
			return nil
		}
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
