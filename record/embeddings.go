package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// EmbeddingFile is what train --embeddings writes: the node embeddings
// (evaluation mode) of the run of best validation accuracy at its
// selected epoch, one row per node, with the nodes' classes (−1:
// unlabelled), for figures such as the t-SNE panels.
type EmbeddingFile struct {
	Dataset string    `json:"dataset"`
	Model   string    `json:"model"`
	Run     int       `json:"run"` // 0-based seed index
	ValAcc  float64   `json:"val_acc"`
	Rows    int       `json:"rows"`
	Cols    int       `json:"cols"`
	Labels  []int32   `json:"labels"`
	Data    []float32 `json:"data"` // Rows × Cols, row-major
}

// WriteEmbeddings writes f to w as an embeddings file: one JSON object.
func WriteEmbeddings(w io.Writer, f *EmbeddingFile) error {
	return json.NewEncoder(w).Encode(f)
}

// ReadEmbeddings parses an embeddings file; name prefixes its errors.
func ReadEmbeddings(b []byte, name string) (*EmbeddingFile, error) {
	var f EmbeddingFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: not an embeddings file: %w", name, err)
	}
	if f.Rows < 1 || f.Cols < 1 || len(f.Data) != f.Rows*f.Cols || len(f.Labels) != f.Rows {
		return nil, fmt.Errorf("%s: %d×%d embedding with %d values and %d labels", name, f.Rows, f.Cols, len(f.Data), len(f.Labels))
	}
	return &f, nil
}
