package experiment

import (
	"fmt"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/internal/atomicfile"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/record"
	"github.com/prcaps/prcaps/train"
)

// Embeddings keeps the embedding (record.EmbeddingFile) of the best run
// (by validation accuracy; ties: the first) and writes it when the
// protocol ends; Run observes the node protocol for it (as a
// train.ModelObserver).
type Embeddings struct {
	f   *atomicfile.File
	rec *record.EmbeddingFile
	err error
}

// NewEmbeddings starts the embeddings file at path; Close writes it whole.
func NewEmbeddings(path string) (*Embeddings, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	return &Embeddings{f: f}, nil
}

// embeddingsOf is e as the observer of r's protocol.
type embeddingsOf struct {
	*Embeddings
	r Run
}

func (embeddingsOf) Epoch(int, train.Epoch) {}
func (embeddingsOf) Run(int, train.Result)  {}

// Selected records the embedding of the best run of the protocol (ties:
// the lowest run, whatever order runs trained at once finish in).
func (o embeddingsOf) Selected(run int, res train.Result, m model.Model) {
	e, r := o.Embeddings, o.r
	if e.rec == nil || res.ValAcc > e.rec.ValAcc || (res.ValAcc == e.rec.ValAcc && run < e.rec.Run) {
		emb, ok := m.(model.NodeEmbedder)
		if !ok {
			e.err = fmt.Errorf("embeddings: the %s model has no embedding output", r.ModelName())
			return
		}
		ds := r.Dataset.Node
		var t autodiff.Tape[float32]
		t.NoGrad = true
		v := emb.Embed(&t, ds.Graph, ds.X)
		e.rec = &record.EmbeddingFile{Dataset: r.Dataset.Name, Model: r.ModelName(), Run: run, ValAcc: res.ValAcc,
			Rows: v.Value.Rows, Cols: v.Value.Cols, Labels: append([]int32(nil), ds.Y...),
			Data: append([]float32(nil), v.Value.Data...)}
	}
}

// Close writes the kept embedding and commits the file.
func (e *Embeddings) Close() error {
	err := e.err
	if err == nil && e.rec == nil {
		err = fmt.Errorf("embeddings: no run finished with a selected epoch")
	}
	if err == nil {
		err = record.WriteEmbeddings(e.f, e.rec)
	}
	if err != nil {
		e.f.Abort()
		return err
	}
	if err := e.f.Commit(); err != nil {
		return fmt.Errorf("embeddings: %w", err)
	}
	return nil
}

// Abort discards the embedding: an existing file keeps its content.
func (e *Embeddings) Abort() { e.f.Abort() }
