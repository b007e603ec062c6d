package clusterstats

import "context"

// ClusterStats is Graylog's ClusterStats.
type ClusterStats struct {
	Elasticsearch           ElasticsearchStats `json:"elasticsearch"`
	Mongo                   MongoStats         `json:"mongo"`
	StreamCount             int                `json:"stream_count"`
	StreamRuleCount         int                `json:"stream_rule_count"`
	StreamRuleCountByStream map[string]int     `json:"stream_rule_count_by_stream"`
	UserCount               int                `json:"user_count"`
	OutputCount             int                `json:"output_count"`
	OutputCountByType       map[string]int     `json:"output_count_by_type"`
	DashboardCount          int                `json:"dashboard_count"`
	InputCount              int                `json:"input_count"`
	GlobalInputCount        int                `json:"global_input_count"`
	InputCountByType        map[string]int     `json:"input_count_by_type"`
	// loggate has no extractors or legacy alarm callbacks: their counts are
	// truly zero.
	ExtractorCount       int            `json:"extractor_count"`
	ExtractorCountByType map[string]int `json:"extractor_count_by_type"`
	AlarmStats           AlarmStats     `json:"alarm_stats"`
}

// AlarmStats is Graylog's AlarmStats.
type AlarmStats struct {
	AlertCount               int            `json:"alert_count"`
	AlarmcallbackCountByType map[string]int `json:"alarmcallback_count_by_type"`
}

// Cluster gathers the cluster totals.
func (h *Handler) Cluster(ctx context.Context) (ClusterStats, error) {
	var (
		st  ClusterStats
		err error
	)
	if st.Elasticsearch, err = h.Elasticsearch(ctx); err != nil {
		return st, err
	}
	if st.Mongo, err = h.Mongo(ctx); err != nil {
		return st, err
	}
	if st.StreamCount, st.StreamRuleCount, st.StreamRuleCountByStream, err = h.src.Streams.Stats(ctx); err != nil {
		return st, err
	}
	if st.UserCount, err = h.src.Users.Count(ctx); err != nil {
		return st, err
	}
	if st.OutputCount, st.OutputCountByType, err = h.src.Outputs.CountByType(ctx); err != nil {
		return st, err
	}
	if st.InputCount, st.GlobalInputCount, st.InputCountByType, err = h.src.Inputs.Count(ctx); err != nil {
		return st, err
	}
	if st.DashboardCount, _, err = h.src.Views.Counts(ctx); err != nil {
		return st, err
	}
	st.ExtractorCountByType = map[string]int{}
	st.AlarmStats.AlarmcallbackCountByType = map[string]int{}
	for _, m := range []*map[string]int{&st.StreamRuleCountByStream, &st.OutputCountByType, &st.InputCountByType} {
		if *m == nil {
			*m = map[string]int{}
		}
	}
	return st, nil
}
