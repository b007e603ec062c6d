package journal

import (
	"net/url"
	"path/filepath"
	"time"

	"github.com/loggate/loggate/router/api"
)

// Stats is the journal's state in the shape of Graylog 4.0's
// JournalSummaryResponse, served by GET /system/journal.
type Stats struct {
	Enabled                   bool           `json:"enabled"`
	AppendEventsPerSecond     int64          `json:"append_events_per_second"`
	ReadEventsPerSecond       int64          `json:"read_events_per_second"`
	UncommittedJournalEntries int64          `json:"uncommitted_journal_entries"`
	JournalSize               int64          `json:"journal_size"`
	JournalSizeLimit          int64          `json:"journal_size_limit"`
	NumberOfSegments          int            `json:"number_of_segments"`
	OldestSegment             *api.Time      `json:"oldest_segment"`
	JournalConfig             *ConfigSummary `json:"journal_config"`
}

// ConfigSummary mirrors Graylog's KafkaJournalConfigurationSummary: sizes in
// bytes, ages in milliseconds.
type ConfigSummary struct {
	// Directory is a file URI, as Jackson writes a java.nio.file.Path.
	Directory   string `json:"directory"`
	SegmentSize int64  `json:"segment_size"`
	SegmentAge  int64  `json:"segment_age"`
	MaxSize     int64  `json:"max_size"`
	MaxAge      int64  `json:"max_age"`
	// FlushInterval and FlushAge describe when data is fsync'd: here before
	// every acknowledgement, so after 1 message and 0 ms.
	FlushInterval int64 `json:"flush_interval"`
	FlushAge      int64 `json:"flush_age"`
}

// DisabledStats is what Graylog reports when message_journal_enabled is
// false: zeros, the epoch as oldest segment and no configuration.
func DisabledStats() Stats {
	return Stats{OldestSegment: &api.Time{Time: time.Unix(0, 0).UTC()}}
}

// Stats returns the journal's current state.
func (j *Journal) Stats() Stats {
	dir, err := filepath.Abs(j.dir)
	if err != nil {
		dir = j.dir
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	now := j.opts.Now()
	st := Stats{
		Enabled:                   true,
		AppendEventsPerSecond:     int64(j.appends.perSecond(now)),
		ReadEventsPerSecond:       int64(j.reads.perSecond(now)),
		UncommittedJournalEntries: int64(j.durable - j.committed),
		JournalSizeLimit:          j.opts.MaxSize,
		NumberOfSegments:          len(j.segs),
		JournalConfig: &ConfigSummary{
			Directory:     (&url.URL{Scheme: "file", Path: dir + "/"}).String(),
			SegmentSize:   j.opts.SegmentSize,
			SegmentAge:    j.opts.SegmentAge.Milliseconds(),
			MaxSize:       j.opts.MaxSize,
			MaxAge:        j.opts.MaxAge.Milliseconds(),
			FlushInterval: 1,
			FlushAge:      0,
		},
	}
	for _, s := range j.segs {
		st.JournalSize += s.size
	}
	if len(j.segs) > 0 {
		st.OldestSegment = &api.Time{Time: j.segs[0].created}
	}
	return st
}

// Utilization is how full the journal is, in percent of MaxSize: the
// segments holding uncommitted records, the measure Append refuses by.
func (j *Journal) Utilization() float64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.opts.MaxSize <= 0 {
		return 0
	}
	return float64(j.uncommittedBytesLocked()) * 100 / float64(j.opts.MaxSize)
}
