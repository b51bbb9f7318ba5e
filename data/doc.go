// Package data loads graph benchmarks from their raw published formats and
// holds them in memory for training: Planetoid pickles (Cora, CiteSeer,
// PubMed), gnn-benchmark .npz files (Coauthor CS, Amazon, ...), the TU Dortmund
// text format (MUTAG, NCI1, NCI109, DD, PROTEINS, any other TU set) and a plain
// CSV/TSV format for users' own graphs. It also makes the protocol splits
// (random 60/20/20, Planetoid public, stratified k-fold with inner validation)
// and ships Cora and MUTAG embedded in the binary.
//
// A Downloader fetches the published files into a data root, checking each
// against the SHA256 pinned in checksums.go before it takes its final name;
// for ogbn-arxiv, of which only the zip has a known checksum, the zip is
// checked and the files extracted from it are recorded in the
// dataset directory's ArchiveManifest, against which Verify checks them.
//
// Graphs are stored as CSR by target: the in-neighbours (sources) of node v
// are Src[Ptr[v]:Ptr[v+1]], so that message passing parallelises over targets
// without atomics.
//
// Conventions (those of PyTorch Geometric): Planetoid and npz graphs are
// symmetrised, deduplicated and stripped of self-loops; TU graphs keep the
// edges as given, with repeated lines deduplicated. Every loader error names
// the file and the problem; no loader panics on bad input.
package data
