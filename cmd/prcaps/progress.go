package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress reports long work: a redrawn bar on a terminal, plain lines
// (at most one every few seconds) otherwise, nothing when quiet.
type progress struct {
	w     io.Writer
	tty   bool
	quiet bool
	last  time.Time
}

func newProgress(w io.Writer, quiet bool) *progress {
	return &progress{w: w, tty: isTerminal(w), quiet: quiet}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// update shows done/total with a message; final forces a plain line.
func (p *progress) Update(label string, done, total int, msg string) {
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

// line prints a line of its own (clearing a bar first on a terminal).
func (p *progress) Line(format string, args ...any) {
	if p.quiet {
		return
	}
	if p.tty {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}
