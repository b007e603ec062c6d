package migrate

import (
	"fmt"
	"io"
	"strings"
)

// barWidth is the width of the progress bar in characters.
const barWidth = 30

// progress reports n of total steps on w: on a terminal a bar redrawn in
// place, "\r[#####     ] 12/40"; elsewhere (a log file, a pipe) one line
// per tenth, which stays readable.
type progress struct {
	w        io.Writer
	terminal bool
	label    string
	total    int
	tenth    int // the last tenth reported when not on a terminal
}

func newProgress(w io.Writer, terminal bool, label string, total int) *progress {
	return &progress{w: w, terminal: terminal, label: label, total: total, tenth: -1}
}

// Step reports that done of the steps are done.
func (p *progress) Step(done int) {
	if p.total <= 0 {
		return
	}
	if p.terminal {
		filled := done * barWidth / p.total
		fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d", p.label, strings.Repeat("#", filled), strings.Repeat(" ", barWidth-filled), done, p.total)
		if done == p.total {
			fmt.Fprintln(p.w)
		}
		return
	}
	if t := done * 10 / p.total; t > p.tenth {
		p.tenth = t
		fmt.Fprintf(p.w, "%s: %d/%d (%d%%)\n", p.label, done, p.total, done*100/p.total)
	}
}
