package elastic

import (
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/loggate/loggate/backend/logs/messages"
)

// DefaultMaxResultWindow is index.max_result_window of new indices when
// IndexSettings leave it 0: the largest result window an index set may
// have. Search refuses pages beyond Query.Window before asking the
// server, so the index setting must only never be the smaller limit;
// Elasticsearch's default of 10,000 would be for every index set whose
// window is larger.
const DefaultMaxResultWindow = 1_000_000

// idField holds a copy of the document id with doc values, to break ties
// when sorting: sorting on _id itself loads it into fielddata on the heap
// (deprecated in 7.6, refused by default in 8). It is a gl2_ field, like
// Graylog's own internal fields, and is removed from messages read back.
const idField = "gl2_loggate_id"

// Graylog's timestamp format, for Elasticsearch 6 (Joda) and 7 (java.time,
// where "yyyy" is the year of era and "uuuu" the proleptic year). Both
// read and write "2020-12-01 10:00:00.000". Graylog's mapping has only
// that format; the ISO and epoch alternatives are loggate's, so that a
// query such as timestamp:["2024-01-02T03:04:07.000Z" TO …] works, as it
// does in the embedded store. Documents are still written in the first.
const (
	dateFormat6 = "yyyy-MM-dd HH:mm:ss.SSS||strict_date_optional_time||epoch_millis"
	dateFormat7 = "uuuu-MM-dd HH:mm:ss.SSS||strict_date_optional_time||epoch_millis"
)

// timeLayout is that format in Go.
const timeLayout = "2006-01-02 15:04:05.000"

func templateName(prefix string) string { return prefix + "-template" }
func deflector(prefix string) string    { return prefix + "_deflector" }
func indexName(prefix string, n int) string {
	return fmt.Sprintf("%s_%d", prefix, n)
}

// templateBody is Graylog 4.0's messages index template for the indices
// of prefix (IndexMappingTemplate, IndexMapping6 and IndexMapping7): order
// -1 so that an operator's own templates take precedence, the keyword
// analyzer for source, and every string not mapped otherwise a keyword.
func templateBody(srv server, prefix, analyzer string) ([]byte, error) {
	if analyzer == "" {
		analyzer = "standard"
	}
	date := dateFormat7
	if srv.typed() {
		date = dateFormat6
	}
	keyword := map[string]any{"type": "keyword"}
	analyzed := func(analyzer string, fielddata bool) map[string]any {
		return map[string]any{"type": "text", "analyzer": analyzer, "fielddata": fielddata}
	}
	mapping := map[string]any{
		"properties": map[string]any{
			messages.FieldMessage:       analyzed(analyzer, false),
			messages.FieldFull:          analyzed(analyzer, false),
			messages.FieldTimestamp:     map[string]any{"type": "date", "format": date},
			messages.FieldAccountedSize: map[string]any{"type": "long"},
			// Wildcard queries lower-case their pattern, so source is
			// lower-cased too, and fielddata lets one sort on it.
			messages.FieldSource:  analyzed("analyzer_keyword", true),
			messages.FieldStreams: keyword,
			idField:               keyword,
		},
		"dynamic_templates": []any{
			map[string]any{"internal_fields": map[string]any{
				"match": "gl2_*", "match_mapping_type": "string", "mapping": keyword,
			}},
			map[string]any{"store_generic": map[string]any{
				"match_mapping_type": "string", "mapping": keyword,
			}},
		},
		"_source": map[string]any{"enabled": true},
	}
	var mappings any = mapping
	if srv.typed() {
		mappings = map[string]any{srv.typeName(): mapping}
	}
	return json.Marshal(map[string]any{
		"index_patterns": []string{prefix + "_*"},
		"order":          -1,
		"settings": map[string]any{"index": map[string]any{
			"analysis": map[string]any{"analyzer": map[string]any{
				"analyzer_keyword": map[string]any{"tokenizer": "keyword", "filter": "lowercase"},
			}},
		}},
		"mappings": mappings,
	})
}

// createIndexBody is the body of PUT /<index>: the index set's settings,
// and the deflector alias when the index is the first of its series.
// Graylog sets shards and replicas when it creates an index, not in the
// template, so that changing an index set changes only later indices.
func createIndexBody(st IndexSettings, alias string) []byte {
	settings := map[string]any{}
	if st.Shards > 0 {
		settings["number_of_shards"] = st.Shards
	}
	settings["number_of_replicas"] = max(st.Replicas, 0)
	settings["max_result_window"] = cmp.Or(st.MaxResultWindow, DefaultMaxResultWindow)
	body := map[string]any{"settings": map[string]any{"index": settings}}
	if alias != "" {
		body["aliases"] = map[string]any{alias: map[string]any{}}
	}
	b, _ := json.Marshal(body) // maps of strings and ints always marshal
	return b
}
