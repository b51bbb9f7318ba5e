package experiment

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/prcaps/prcaps/internal/atomicfile"

	"github.com/prcaps/prcaps/train"
)

// ValLogits writes the validation logits of every fold and epoch of a graph
// run (--val-logits) to dir/<dataset>-fold<NN>.tsv, one line per graph and
// epoch: epoch, graph index, label, then the class logits. They are the
// input of `go run ./tools/selection` (docs/notes/epoch-selection.md). It
// is a train.ValidationObserver (Run adds it).
type ValLogits struct {
	dir, dataset string
	files        map[int]*atomicfile.File
	bufs         map[int]*bufio.Writer
	err          error // the first write error
	line         []byte
}

// NewValLogits makes dir for the files, which Close writes whole (an
// interrupted run leaves existing files as they were).
func NewValLogits(dir, dataset string) (*ValLogits, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("val logits: %w", err)
	}
	return &ValLogits{dir: dir, dataset: dataset, files: map[int]*atomicfile.File{}, bufs: map[int]*bufio.Writer{}}, nil
}

// Epoch does nothing: Validation gets the epoch's logits.
func (l *ValLogits) Epoch(int, train.Epoch) {}

// Run does nothing.
func (l *ValLogits) Run(int, train.Result) {}

// Validation writes fold's validation logits of epoch v.Epoch.
func (l *ValLogits) Validation(fold int, v train.ValScores) {
	if l.err != nil {
		return
	}
	w, ok := l.bufs[fold]
	if !ok {
		f, err := atomicfile.Create(filepath.Join(l.dir, fmt.Sprintf("%s-fold%02d.tsv", l.dataset, fold)))
		if err != nil {
			l.err = fmt.Errorf("val logits: %w", err)
			return
		}
		l.files[fold], w = f, bufio.NewWriter(f)
		l.bufs[fold] = w
	}
	for i, g := range v.Graphs {
		b := strconv.AppendInt(l.line[:0], int64(v.Epoch), 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(g), 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(v.Labels[i]), 10)
		for _, x := range v.Logits[i*v.Classes : (i+1)*v.Classes] {
			b = append(b, '\t')
			b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
		}
		l.line = append(b, '\n')
		if _, err := w.Write(l.line); err != nil {
			l.err = fmt.Errorf("val logits %s: %w", l.files[fold].Path, err)
			return
		}
	}
}

// Close flushes and commits the files, or, after a write error, discards
// them all; it returns the first error.
func (l *ValLogits) Close() error {
	for fold, w := range l.bufs {
		if err := w.Flush(); err != nil && l.err == nil {
			l.err = fmt.Errorf("val logits %s: %w", l.files[fold].Path, err)
		}
	}
	for _, f := range l.files {
		if l.err != nil {
			f.Abort()
		} else if err := f.Commit(); err != nil {
			l.err = fmt.Errorf("val logits: %w", err)
		}
	}
	return l.err
}

// Abort discards every file: existing ones keep their content.
func (l *ValLogits) Abort() {
	for _, f := range l.files {
		f.Abort()
	}
}
