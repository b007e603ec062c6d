package views

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/analysis/search"
	"github.com/loggate/loggate/router/api"
)

// Executor runs one query of a search with the search package's execution
// (the one POST /views/search/sync uses); *search.Handler satisfies it.
type Executor interface {
	RunQuery(ctx context.Context, query json.RawMessage, now time.Time) (map[string]any, error)
	// Now is the end of relative ranges.
	Now() time.Time
	// ExportQuery writes the CSV of a query of a stored search, or of one
	// of its message lists, as the body (a ResultFormat) asks.
	ExportQuery(w http.ResponseWriter, r *http.Request, query json.RawMessage, searchTypeID string, body []byte) error
}

// executionState is Graylog's ExecutionState: parameter bindings, and
// overrides of every query (global_override) or of one (queries).
type executionState struct {
	ParameterBindings    map[string]json.RawMessage `json:"parameter_bindings"`
	Queries              map[string]*override       `json:"queries"`
	GlobalOverride       *override                  `json:"global_override"`
	AdditionalParameters map[string]json.RawMessage `json:"additional_parameters"`
}

// override is Graylog's ExecutionStateGlobalOverride: a dashboard's time
// range and query, the search types to run (a widget refreshing runs only
// its own), and per search type settings such as a message list's page.
type override struct {
	TimeRange       json.RawMessage            `json:"timerange"`
	Query           json.RawMessage            `json:"query"`
	KeepSearchTypes []string                   `json:"keep_search_types"`
	SearchTypes     map[string]json.RawMessage `json:"search_types"`
}

func isNull(raw json.RawMessage) bool {
	r := gjson.ParseBytes(raw)
	return len(raw) == 0 || r.Type == gjson.Null
}

// apply returns the query with the override applied.
func (o *override) apply(query json.RawMessage) (json.RawMessage, error) {
	if o == nil {
		return query, nil
	}
	out := []byte(query)
	var err error
	if !isNull(o.TimeRange) {
		if out, err = sjson.SetRawBytes(out, "timerange", o.TimeRange); err != nil {
			return nil, err
		}
	}
	if !isNull(o.Query) {
		if out, err = sjson.SetRawBytes(out, "query", o.Query); err != nil {
			return nil, err
		}
	}
	if len(o.KeepSearchTypes) == 0 && len(o.SearchTypes) == 0 {
		return out, nil
	}
	types := []json.RawMessage{}
	for _, st := range gjson.GetBytes(out, "search_types").Array() {
		id := st.Get("id").Str
		if len(o.KeepSearchTypes) > 0 && !slices.Contains(o.KeepSearchTypes, id) {
			continue
		}
		raw := json.RawMessage(st.Raw)
		if set := gjson.ParseBytes(o.SearchTypes[id]); set.IsObject() && st.IsObject() {
			// Merged as maps: sjson would read dots in a key as a path.
			var merged map[string]json.RawMessage
			if err := json.Unmarshal(raw, &merged); err != nil {
				return nil, err
			}
			set.ForEach(func(k, v gjson.Result) bool {
				merged[k.Str] = json.RawMessage(v.Raw)
				return true
			})
			if raw, err = json.Marshal(merged); err != nil {
				return nil, err
			}
		}
		types = append(types, raw)
	}
	enc, err := json.Marshal(types)
	if err != nil {
		return nil, err
	}
	return sjson.SetRawBytes(out, "search_types", enc)
}

// jobError is Graylog's QueryError (SearchTypeError with search_type_id):
// a query that failed while the job as a whole completed.
type jobError struct {
	Description  string  `json:"description"`
	QueryID      string  `json:"query_id"`
	SearchTypeID *string `json:"search_type_id,omitempty"`
	Backtrace    *string `json:"backtrace"`
	Type         string  `json:"type"`
}

// searchJob is Graylog's SearchJob as execute and status answer it.
type searchJob struct {
	ID        string         `json:"id"`
	SearchID  string         `json:"search_id"`
	Owner     string         `json:"owner"`
	Errors    []jobError     `json:"errors"`
	Results   map[string]any `json:"results"`
	Execution jobExecution   `json:"execution"`
}

type jobExecution struct {
	Done                   bool `json:"done"`
	Cancelled              bool `json:"cancelled"`
	CompletedExceptionally bool `json:"completed_exceptionally"`
}

// eventsType is the events search type (alerts in a search's widgets);
// until loggate has events it answers an empty list.
const eventsType = "events"

// execute runs search for the caller with state applied and returns the
// job. A query the client got wrong (a syntax error, a search type loggate
// does not know) fails alone and is reported in the job, as Graylog
// reports a failed query; anything else (stream permissions, a store
// outage) fails the request.
func execute(ctx context.Context, exec Executor, vs ViewSearch, state executionState, owner string) (searchJob, error) {
	ctx = search.WithRequestSize(ctx)
	now := exec.Now()
	job := searchJob{
		ID: primitive.NewObjectID().Hex(), SearchID: vs.ID, Owner: owner, Errors: []jobError{},
		Results: map[string]any{}, Execution: jobExecution{Done: true},
	}
	for _, q := range vs.Queries {
		qid := gjson.GetBytes(q, "id").Str
		q, err := state.GlobalOverride.apply(q)
		if err == nil {
			q, err = state.Queries[qid].apply(q)
		}
		if err != nil {
			return searchJob{}, fmt.Errorf("apply the execution state to query %s: %w", qid, err)
		}
		q, events, err := splitEvents(q)
		if err != nil {
			return searchJob{}, fmt.Errorf("query %s: %w", qid, err)
		}
		res, err := exec.RunQuery(ctx, q, now)
		if err != nil {
			if api.ErrorCode(err) != api.Invalid {
				return searchJob{}, err
			}
			jerr := jobError{Description: clientMessage(err), QueryID: qid, Type: "query"}
			job.Errors = append(job.Errors, jerr)
			job.Results[qid] = map[string]any{
				"query": json.RawMessage(q), "search_types": map[string]any{}, "errors": []jobError{jerr}, "state": "FAILED",
				"execution_stats": map[string]any{"duration": 0, "timestamp": api.Time{Time: now}, "effective_timerange": nil},
			}
			continue
		}
		if len(events) > 0 {
			types, ok := res["search_types"].(map[string]any)
			if !ok {
				types = map[string]any{}
				res["search_types"] = types
			}
			for _, id := range events {
				types[id] = map[string]any{"id": id, "type": eventsType, "events": []any{}, "name": nil}
			}
		}
		job.Results[qid] = res
	}
	return job, nil
}

// splitEvents takes the events search types out of a query, for the
// executor does not know them, and returns their ids.
func splitEvents(q json.RawMessage) (json.RawMessage, []string, error) {
	var ids []string
	keep := []json.RawMessage{}
	for _, st := range gjson.GetBytes(q, "search_types").Array() {
		if st.Get("type").Str == eventsType {
			ids = append(ids, st.Get("id").Str)
			continue
		}
		keep = append(keep, json.RawMessage(st.Raw))
	}
	if len(ids) == 0 {
		return q, nil, nil
	}
	enc, err := json.Marshal(keep)
	if err != nil {
		return nil, nil, err
	}
	out, err := sjson.SetRawBytes(q, "search_types", enc)
	return out, ids, err
}

// clientMessage is the text of an error meant for the client.
func clientMessage(err error) string {
	var e *api.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
