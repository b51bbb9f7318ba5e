// Package record holds the results that outlive a process, in the forms
// they are written to disk and printed: one run's outcome (Result), a
// protocol's summary (Summary), the lines of `prcaps train --json`
// (RunRecord) and of `prcaps bench --json` (BenchRecord), the bench's fold
// log (FoldRecord, appended with AppendLog and read back with ReadLog), the
// training-curves file (EpochRecord), the embeddings file (EmbeddingFile),
// a grid search's trials (Trial, the lines of a tune log) and the fair
// selection's per-model records (SelectRecord of SelectFold), each with its
// reader where the project reads it back.
//
// The package is a leaf: it imports the standard library, package stats
// and the project's bounded reader (internal/fileguard) only, so that a reader of results (package
// figure, the tools) does not link the models or the trainer. The JSON
// forms are a contract (DESIGN §8): the committed logs under docs/results
// must read back as they were written, so a field is added with omitempty
// and never renamed.
package record
