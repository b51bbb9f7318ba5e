// Package model assembles layers into the models of the paper behind one
// interface: PR-CapsNet for node classification (PRCapsNet, with every
// ablation variant of the paper through its configuration) and for graph
// classification (PRCapsGraphNet), and the baselines (GCN).
//
// A model is built for a Shape (input feature width, classes) from its
// configuration and a seed. NodeModel.Forward takes the graph and the
// features at call time, so one trained model scores any graph; a
// GraphModel scores a mini-batch of graphs. Every model lists its
// parameters, with dotted names, in optimiser groups (Model.Groups); the
// optional NodeEmbedder and GraphEmbedder give the representation the
// classifier reads.
//
// Models are registered by name and task (Register, from the model's own
// file), and built by name with New, NewNode or NewGraph. A configuration
// is a pointer to a plain struct with a Validate method: nil means the
// model's defaults, and a zero field takes the default its comment gives,
// except dropout probabilities and switches, whose zero means off (so
// PRCapsConfig{} is the default network without dropout, and
// DefaultPRCapsConfig the authors' setting with it). Fields tagged
// `opt:"name"` are options that package option sets by name, which is
// how `prcaps train` turns them into flags. Enumerations (Routing,
// Classifier, Stem, RoutingInit) are typed constants whose zero value is
// the default, written and parsed as their command-line names.
//
// Training recipes (optimiser, learning rate, epochs) are not part of a
// model: see train.Recipe.
package model
