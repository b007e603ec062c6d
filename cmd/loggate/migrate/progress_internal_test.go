package migrate

import (
	"bytes"
	"testing"
)

func TestProgress(t *testing.T) {
	tests := []struct {
		name     string
		terminal bool
		total    int
		steps    []int
		want     string
	}{
		{"terminal", true, 4, []int{1, 2, 4}, "\rlinking [#######                       ] 1/4" +
			"\rlinking [###############               ] 2/4" + "\rlinking [##############################] 4/4\n"},
		{"log-every-tenth", false, 40, []int{1, 2, 3, 4, 5, 40}, "linking: 1/40 (2%)\nlinking: 4/40 (10%)\nlinking: 40/40 (100%)\n"},
		{"nothing", false, 0, []int{1}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			p := newProgress(&b, tc.terminal, "linking", tc.total)
			for _, s := range tc.steps {
				p.Step(s)
			}
			if b.String() != tc.want {
				t.Errorf("got %q\nwant %q", b.String(), tc.want)
			}
		})
	}
}
