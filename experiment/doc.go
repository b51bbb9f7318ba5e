// Package experiment runs registered models under the paper's protocols and
// regenerates its tables.
//
// Run is the one entry point for a protocol run of a model on a dataset
// (the seeds of the node protocol or the folds of the graph protocol):
// `prcaps train` is one Run, and every cell of a `prcaps bench` table is
// one. The paper's tables are data (Suites): which variants of which
// models run on which datasets, with the paper's own numbers beside ours.
// A Bench runs a selection of tables, reusing the result of a
// configuration that an earlier table already ran, pooling the folds of a
// graph table's cells over the cores, and renders each table with package
// report. What it writes (the fold log, the curves and embeddings files,
// the JSON lines of train and bench) is in package record's forms, so
// that a reader of results does not link this package.
package experiment
