// Package indexsets owns index sets — where messages of a stream are
// written, how the indices are rotated and retired — their storage, the three
// index sets Graylog 4.0 creates on its first start, and the
// /system/indices/index_sets, /system/indices/rotation and
// /system/indices/retention resources.
package indexsets

import (
	"regexp"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Store collections of this package.
const (
	// Collection holds the index sets, one document per index set.
	Collection = "index_sets"
	// ConfigCollection holds the default index set's id (Graylog keeps it
	// in its cluster config as DefaultIndexSetConfig) and the seeding marker.
	ConfigCollection = "index_sets_config"
)

// Indexes are the unique indexes index sets need: two index sets can never
// share a prefix, as Graylog's unique MongoDB index on index_prefix ensures.
var Indexes = []store.Index{{Collection: Collection, Field: "index_prefix"}}

// Template types of an index set's index template.
const (
	TemplateMessages = "messages"
	TemplateEvents   = "events"
	// TemplateGIMv1 is Graylog 4.0's third type, for the Graylog
	// Information Model; accepted so that clients sending it are not refused.
	TemplateGIMv1 = "gim_v1"
)

var templateTypes = []string{TemplateMessages, TemplateEvents, TemplateGIMv1}

// prefixPattern is Graylog's IndexSetConfig.INDEX_PREFIX_REGEX.
const prefixPattern = `^[a-z0-9][a-z0-9_+-]*$`

var validPrefix = regexp.MustCompile(prefixPattern)

// minRefreshInterval is IndexSetValidator's floor for
// field_type_refresh_interval: refreshing field types more often than once a
// second costs more than it tells.
const minRefreshInterval = 1000

// maxResultWindow caps max_result_window: deep paging costs memory on
// every search that reaches it.
const maxResultWindow = 1_000_000

// IndexSet is a stored index set, Graylog's IndexSetConfig. Whether it is the
// default is not a property of the index set but of the cluster (DefaultID).
type IndexSet struct {
	ID                              string          `json:"id"`
	Title                           string          `json:"title"`
	Description                     *string         `json:"description"`
	Writable                        bool            `json:"writable"`
	IndexPrefix                     string          `json:"index_prefix"`
	Shards                          int             `json:"shards"`
	Replicas                        int             `json:"replicas"`
	RotationStrategyClass           string          `json:"rotation_strategy_class"`
	RotationStrategy                RotationConfig  `json:"rotation_strategy"`
	RetentionStrategyClass          string          `json:"retention_strategy_class"`
	RetentionStrategy               RetentionConfig `json:"retention_strategy"`
	CreationDate                    api.Time        `json:"creation_date"`
	IndexAnalyzer                   string          `json:"index_analyzer"`
	IndexTemplateName               string          `json:"index_template_name"`
	IndexTemplateType               *string         `json:"index_template_type"`
	IndexOptimizationMaxNumSegments int             `json:"index_optimization_max_num_segments"`
	IndexOptimizationDisabled       bool            `json:"index_optimization_disabled"`
	// FieldTypeRefreshInterval is in milliseconds, as Graylog writes a Joda
	// Duration.
	FieldTypeRefreshInterval int64 `json:"field_type_refresh_interval"`
	// MaxResultWindow is loggate's stand-in for Elasticsearch's
	// index.max_result_window: the deepest offset+limit a search of this
	// index set may page to. 0 means the default, 10,000. It is omitted
	// from responses until set, so Graylog's shape is unchanged.
	MaxResultWindow int `json:"max_result_window,omitempty"`
}

// Summary is Graylog's IndexSetSummary, the shape of an index set in every
// response, in Graylog's property order.
type Summary struct {
	ID                              string          `json:"id"`
	Title                           string          `json:"title"`
	Description                     *string         `json:"description"`
	Default                         bool            `json:"default"`
	Writable                        bool            `json:"writable"`
	IndexPrefix                     string          `json:"index_prefix"`
	Shards                          int             `json:"shards"`
	Replicas                        int             `json:"replicas"`
	RotationStrategyClass           string          `json:"rotation_strategy_class"`
	RotationStrategy                RotationConfig  `json:"rotation_strategy"`
	RetentionStrategyClass          string          `json:"retention_strategy_class"`
	RetentionStrategy               RetentionConfig `json:"retention_strategy"`
	CreationDate                    api.Time        `json:"creation_date"`
	IndexAnalyzer                   string          `json:"index_analyzer"`
	IndexOptimizationMaxNumSegments int             `json:"index_optimization_max_num_segments"`
	IndexOptimizationDisabled       bool            `json:"index_optimization_disabled"`
	FieldTypeRefreshInterval        int64           `json:"field_type_refresh_interval"`
	MaxResultWindow                 int             `json:"max_result_window,omitempty"`
	IndexTemplateType               *string         `json:"index_template_type"`
}

// Summarize returns the summary of s; isDefault says whether s is the
// default index set.
func Summarize(s IndexSet, isDefault bool) Summary {
	return Summary{
		ID: s.ID, Title: s.Title, Description: s.Description, Default: isDefault, Writable: s.Writable,
		IndexPrefix: s.IndexPrefix, Shards: s.Shards, Replicas: s.Replicas,
		RotationStrategyClass: s.RotationStrategyClass, RotationStrategy: s.RotationStrategy,
		RetentionStrategyClass: s.RetentionStrategyClass, RetentionStrategy: s.RetentionStrategy,
		CreationDate: s.CreationDate, IndexAnalyzer: s.IndexAnalyzer,
		IndexOptimizationMaxNumSegments: s.IndexOptimizationMaxNumSegments,
		IndexOptimizationDisabled:       s.IndexOptimizationDisabled,
		FieldTypeRefreshInterval:        s.FieldTypeRefreshInterval,
		MaxResultWindow:                 s.MaxResultWindow,
		IndexTemplateType:               s.IndexTemplateType,
	}
}

// IndexSetStats is Graylog's IndexSetStats: the number of indices (open and closed),
// of documents and their size in bytes.
type IndexSetStats struct {
	Indices   int64 `json:"indices"`
	Documents int64 `json:"documents"`
	Size      int64 `json:"size"`
}

func (s IndexSetStats) plus(o IndexSetStats) IndexSetStats {
	return IndexSetStats{Indices: s.Indices + o.Indices, Documents: s.Documents + o.Documents, Size: s.Size + o.Size}
}
