package metrics

// Summary returns the timer in Graylog's TimerRateMetricsResponse shape
// (times in microseconds, rates per second), which resources embed, such
// as an extractor's metrics.
func (t *Timer) Summary() any { return t.summary() }
