package report

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Progress reports long work on w: a redrawn bar on a terminal, plain
// lines (at most one every two seconds) otherwise, nothing when quiet. It
// is not safe for concurrent use; the protocols call their progress hooks
// one at a time.
type Progress struct {
	w     io.Writer
	tty   bool
	quiet bool
	last  time.Time
}

// NewProgress returns a Progress writing to w (silent when quiet).
func NewProgress(w io.Writer, quiet bool) *Progress {
	return &Progress{w: w, tty: isTerminal(w), quiet: quiet}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Update shows label with done/total and a message; on a terminal the bar
// is redrawn in place and ends its line when done reaches total.
func (p *Progress) Update(label string, done, total int, msg string) {
	if p.quiet {
		return
	}
	if p.tty {
		const width = 30
		fill := 0
		if total > 0 {
			fill = width * done / total
		}
		fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d %s\x1b[K", label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total, msg)
		if done == total {
			fmt.Fprintln(p.w)
		}
		return
	}
	if done == total || time.Since(p.last) >= 2*time.Second {
		p.last = time.Now()
		fmt.Fprintf(p.w, "%s %d/%d %s\n", label, done, total, msg)
	}
}

// Line prints a line of its own (clearing a bar first on a terminal).
func (p *Progress) Line(format string, args ...any) {
	if p.quiet {
		return
	}
	if p.tty {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}
