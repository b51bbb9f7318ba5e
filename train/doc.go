// Package train runs models under the paper's protocols: the training loop
// with best-validation epoch selection, the node protocols (random 60/20/20
// splits over seeds, the Planetoid public split) and the graph protocol
// (stratified k-fold cross-validation with an inner validation split), and
// the result records with mean ± std, parameter count and wall time.
//
// Model selection never looks at test labels: the reported test accuracy is
// the one at the epoch of best validation accuracy. Ties go, in the node
// protocols, to the lower validation loss, then the earlier epoch; in the
// graph protocol, whose validation sets are small, to the later epoch
// (docs/notes/epoch-selection.md).
//
// Every run, full-batch node, sampled node or graph, goes through one epoch
// loop, which holds the stop channel, the learning-rate schedule, the
// divergence rule, the selection, patience and the selected epoch's
// parameters; the kinds of run differ only in how an epoch's steps are
// taken and how the model is scored. An Observer watches the runs: every
// epoch, every finished run and, if it asks, the selected model, a graph
// run's validation logits and its test curve.
package train
