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
// model's defaults (its DefaultXConfig). Validate checks a configuration
// as it is: a zero field whose range excludes zero is an error, not the
// default, so a configuration read from outside (a checkpoint's, a
// command line's) cannot ask for a default by a zero; start from the
// default configuration. Only the models' own constructors (NewPRCapsNet,
// NewGCN, ...) fill a zero field with the default its comment gives, a
// convenience for code (dropout probabilities and switches excepted, whose
// zero means off: NewPRCapsNet(PRCapsConfig{}, ...) is the default network
// without dropout). Fields tagged `opt:"name"` are options that package
// option sets by name, which is how `prcaps train` turns them into flags;
// their `min`, `max`, `gt` and `lt` tags give the range of an explicit
// value, which option.Set checks. Enumerations (Routing,
// Classifier, Stem, RoutingInit) are typed constants whose zero value is
// the default, written and parsed as their command-line names.
//
// Training recipes (optimiser, learning rate, epochs) are not part of a
// model: see train.Recipe.
package model
