package traffic

import "testing"

func TestSum(t *testing.T) {
	var s Sum
	for _, step := range []struct {
		values map[string]int64
		want   int64
	}{
		{map[string]int64{"a": 10}, 10},
		{map[string]int64{"a": 15, "b": 5}, 20},
		{map[string]int64{"a": 3, "b": 5}, 23}, // a restarted from zero
		{map[string]int64{"b": 7}, 25},         // a is gone
	} {
		if got := s.Add(step.values); got != step.want {
			t.Errorf("Add(%v) = %d, want %d", step.values, got, step.want)
		}
	}
}
