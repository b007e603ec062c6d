package cache

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"
)

// TestMemoryTagIndex checks that the tag index holds exactly the keys that
// are in the LRU after evictions, deletes and invalidations, so it can
// neither leak nor point at keys it should not.
func TestMemoryTagIndex(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		name string
		then func(m *Memory) error
		want map[string][]string
	}{
		{"after evictions", func(*Memory) error { return nil }, map[string][]string{
			"all": {"k6", "k7", "k8", "k9"}, "k6": {"k6"}, "k7": {"k7"}, "k8": {"k8"}, "k9": {"k9"},
		}},
		{"after delete", func(m *Memory) error { return m.Delete(ctx, "k6", "k8", "absent") }, map[string][]string{
			"all": {"k7", "k9"}, "k7": {"k7"}, "k9": {"k9"},
		}},
		{"after invalidation", func(m *Memory) error { return m.InvalidateTag(ctx, "k7") }, map[string][]string{
			"all": {"k6", "k8", "k9"}, "k6": {"k6"}, "k8": {"k8"}, "k9": {"k9"},
		}},
		{"after invalidating everything", func(m *Memory) error { return m.InvalidateTag(ctx, "all") }, map[string][]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMemory(4, func() time.Time { return time.Unix(0, 0) })
			for i := range 10 {
				k := fmt.Sprintf("k%d", i)
				if err := m.Set(ctx, k, nil, time.Hour, k, "all"); err != nil {
					t.Fatal(err)
				}
			}
			if err := tc.then(m); err != nil {
				t.Fatal(err)
			}
			got := make(map[string][]string)
			for tag, keys := range m.tags {
				got[tag] = slices.Sorted(maps.Keys(keys))
			}
			if !maps.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("tag index = %v, want %v", got, tc.want)
			}
			if n := m.entries.Len(); n != len(got["all"]) {
				t.Errorf("%d entries, %d under tag all; want the same", n, len(got["all"]))
			}
		})
	}
}
