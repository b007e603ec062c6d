package search

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// bucketSpec is a pivot's row or column group (Graylog's BucketSpec):
// {"type":"time","field":"timestamp","interval":{…}} or
// {"type":"values","field":"source","limit":15}. The widget form of a pivot
// (row_pivots) nests interval and limit in config; both are read.
type bucketSpec struct {
	Type     string        `json:"type"`
	Field    string        `json:"field"`
	Interval *intervalSpec `json:"interval"`
	Limit    *int          `json:"limit"`
	Config   *struct {
		Interval *intervalSpec `json:"interval"`
		Limit    *int          `json:"limit"`
	} `json:"config"`
}

// intervalSpec is a time group's interval: {"type":"auto","scaling":1.0},
// {"type":"timeunit","timeunit":"1h"}, or the widget form
// {"type":"timeunit","value":1,"unit":"hours"}.
type intervalSpec struct {
	Type     string   `json:"type"`
	Timeunit string   `json:"timeunit"`
	Scaling  *float64 `json:"scaling"`
	Value    *int     `json:"value"`
	Unit     string   `json:"unit"`
}

// seriesSpec is a pivot's series: {"type":"avg","id":"avg(took)","field":"took"},
// or the widget form {"function":"avg(took)"}.
type seriesSpec struct {
	Type     string `json:"type"`
	ID       string `json:"id"`
	Field    string `json:"field"`
	Function string `json:"function"`
}

// widgetUnits are the units of the widget form of timeunit intervals.
var widgetUnits = map[string]string{
	"milliseconds": "ms", "seconds": "s", "minutes": "m", "hours": "h", "days": "d", "weeks": "w", "months": "M",
}

func (iv *intervalSpec) grouping(g *Grouping) error {
	if iv == nil {
		return nil // Graylog's default: auto
	}
	switch iv.Type {
	case "auto":
		if iv.Scaling != nil {
			if s := *iv.Scaling; !(s > 0) || math.IsInf(s, 0) {
				return fmt.Errorf("the scaling of an auto interval must be a positive number")
			}
			g.Scaling = *iv.Scaling
		}
		return nil
	case "timeunit":
		unit := iv.Timeunit
		if unit == "" && iv.Value != nil {
			u, ok := widgetUnits[iv.Unit]
			if !ok {
				return fmt.Errorf("unknown interval unit %q", iv.Unit)
			}
			unit = fmt.Sprint(*iv.Value) + u
		}
		var err error
		g.Interval, err = ParseTimeUnit(unit)
		return err
	}
	return fmt.Errorf("unknown interval type %q; use auto or timeunit", iv.Type)
}

func (b bucketSpec) grouping() (Grouping, error) {
	interval, limit := b.Interval, b.Limit
	if b.Config != nil {
		interval = cmpOr(interval, b.Config.Interval)
		limit = cmpOr(limit, b.Config.Limit)
	}
	switch b.Type {
	case "time":
		if b.Field != "" && b.Field != messages.FieldTimestamp {
			return Grouping{}, fmt.Errorf("time groups are by timestamp; %q is not supported", b.Field)
		}
		g := Grouping{Field: messages.FieldTimestamp, Time: true}
		err := interval.grouping(&g)
		return g, err
	case "values":
		if strings.TrimSpace(b.Field) == "" {
			return Grouping{}, fmt.Errorf("a values group needs a field")
		}
		g := Grouping{Field: b.Field}
		if limit != nil {
			if *limit <= 0 {
				return Grouping{}, fmt.Errorf("the limit of the values of %s must be greater than 0", b.Field)
			}
			g.Limit = *limit
		}
		return g, nil
	}
	return Grouping{}, fmt.Errorf("unknown group type %q; use time or values", b.Type)
}

func cmpOr[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

func (s seriesSpec) series() (Series, error) {
	if s.Type == "" && s.Function != "" {
		return ParseSeries(s.Function)
	}
	out := Series{ID: s.ID, Type: strings.ToLower(s.Type), Field: s.Field}
	if out.ID == "" {
		out.ID = out.Literal()
	}
	return out, out.Validate()
}

// pivotSpec is the part of a search type that makes a pivot.
type pivotSpec struct {
	RowGroups    []bucketSpec `json:"row_groups,omitempty"`
	ColumnGroups []bucketSpec `json:"column_groups,omitempty"`
	RowPivots    []bucketSpec `json:"row_pivots,omitempty"`
	ColumnPivots []bucketSpec `json:"column_pivots,omitempty"`
	Series       []seriesSpec `json:"series,omitempty"`
	// Rollup adds each level's totals; missing is true, as the 4.0 web
	// interface always asks.
	Rollup *bool `json:"rollup,omitempty"`
}

// aggregation returns the aggregation a pivot asks for, and whether it
// rolls up.
func (p *pivotSpec) aggregation(sort []viewSort) (Aggregation, bool, error) {
	var a Aggregation
	rows, cols := p.RowGroups, p.ColumnGroups
	if len(rows) == 0 {
		rows = p.RowPivots
	}
	if len(cols) == 0 {
		cols = p.ColumnPivots
	}
	for _, b := range rows {
		g, err := b.grouping()
		if err != nil {
			return a, false, api.Errorf(api.Invalid, "Invalid row group: %v", err)
		}
		a.Rows = append(a.Rows, g)
	}
	for _, b := range cols {
		g, err := b.grouping()
		if err != nil {
			return a, false, api.Errorf(api.Invalid, "Invalid column group: %v", err)
		}
		a.Columns = append(a.Columns, g)
	}
	for _, s := range p.Series {
		sr, err := s.series()
		if err != nil {
			return a, false, api.Errorf(api.Invalid, "Invalid series: %v", err)
		}
		a.Series = append(a.Series, sr)
	}
	for _, s := range sort {
		desc := strings.EqualFold(s.Direction, "descending") || strings.EqualFold(s.Order, "desc")
		switch s.Type {
		case "series":
			a.Sort = append(a.Sort, Order{Series: s.Field, Desc: desc})
		case "pivot":
			a.Sort = append(a.Sort, Order{Field: s.Field, Desc: desc})
		default:
			return a, false, api.Errorf(api.Invalid, "Invalid sort: unknown type %q; use series or pivot", s.Type)
		}
	}
	return a, p.Rollup == nil || *p.Rollup, nil
}

// pivotRow and pivotValue are Graylog's PivotResult.Row and Value.
type pivotRow struct {
	Key    []string     `json:"key"`
	Values []pivotValue `json:"values"`
	Source string       `json:"source"`
}

type pivotValue struct {
	Key    []string `json:"key"`
	Value  any      `json:"value"`
	Rollup bool     `json:"rollup"`
	Source string   `json:"source"`
}

// pivotResult is Graylog's PivotResult; rows is left out when empty
// (JsonInclude.NON_EMPTY).
type pivotResult struct {
	ID                 string         `json:"id"`
	Type               string         `json:"type"`
	Rows               []pivotRow     `json:"rows,omitempty"`
	Total              int64          `json:"total"`
	EffectiveTimerange map[string]any `json:"effective_timerange"`
}

// pivotRows lays the buckets out as Graylog 4.0's Elasticsearch pivot
// does: one row per combination of row keys (source "leaf"), its columns'
// values keyed by the column keys and the series ("col-leaf"), and with
// rollup the totals of every column level ("col-inner") and, after each
// row level's buckets, a row of their total ("non-leaf", values
// "row-inner").
func pivotRows(a Aggregation, series []Series, root *Bucket, rollup bool) []pivotRow {
	var rows []pivotRow
	addSeries := func(row *pivotRow, colKeys []string, b *Bucket, rolled bool, source string) {
		for i, s := range series {
			key := append(append(make([]string, 0, len(colKeys)+1), colKeys...), s.Key())
			row.Values = append(row.Values, pivotValue{Key: key, Value: b.Values[i], Rollup: rolled, Source: source})
		}
	}
	var columns func(row *pivotRow, b *Bucket, level int, colKeys []string)
	columns = func(row *pivotRow, b *Bucket, level int, colKeys []string) {
		if level == len(a.Columns) {
			if len(colKeys) > 0 {
				addSeries(row, colKeys, b, false, "col-leaf")
			}
			return
		}
		for _, c := range b.Buckets {
			columns(row, c, level+1, append(colKeys, c.Key))
		}
		if rollup {
			addSeries(row, colKeys, b, true, "col-inner")
		}
	}
	var walk func(b *Bucket, level int, rowKeys []string)
	walk = func(b *Bucket, level int, rowKeys []string) {
		if level == len(a.Rows) {
			row := pivotRow{Key: append([]string{}, rowKeys...), Values: []pivotValue{}, Source: "leaf"}
			if len(a.Columns) == 0 {
				addSeries(&row, nil, b, true, "row-leaf")
			} else {
				columns(&row, b, 0, nil)
			}
			rows = append(rows, row)
			return
		}
		for _, c := range b.Buckets {
			walk(c, level+1, append(rowKeys, c.Key))
		}
		if rollup {
			row := pivotRow{Key: append([]string{}, rowKeys...), Values: []pivotValue{}, Source: "non-leaf"}
			addSeries(&row, nil, b, true, "row-inner")
			rows = append(rows, row)
		}
	}
	walk(root, 0, nil)
	return rows
}

// runPivot answers a pivot search type.
func (h *Handler) runPivot(ctx context.Context, st searchType, req Request) (pivotResult, error) {
	a, rollup, err := st.pivotSpec.aggregation(st.Sort)
	if err != nil {
		return pivotResult{}, err
	}
	res, err := h.svc.Aggregate(ctx, req, a)
	if err != nil {
		return pivotResult{}, err
	}
	if err := countPivotValues(ctx, &requestSize{}, pivotValues(res.Root, len(a.Series))); err != nil {
		return pivotResult{}, err
	}
	return pivotResult{ID: st.ID, Type: "pivot", Rows: pivotRows(a, a.Series, res.Root, rollup),
		Total: res.Total, EffectiveTimerange: effective(req.Range)}, nil
}

// decodePivot reads a pivot search type from JSON, for tests and fuzzing
// of the request parsing alone.
func decodePivot(body []byte) (Aggregation, bool, error) {
	var st searchType
	if err := json.Unmarshal(body, &st); err != nil {
		return Aggregation{}, false, err
	}
	return st.pivotSpec.aggregation(st.Sort)
}
