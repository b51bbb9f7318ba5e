// Package model assembles layers into the models of the paper: PR-CapsNet
// for node and graph classification, its ablation variants, and the
// baselines (GCN, GAT, GIN, ...), each with a Config struct whose zero
// fields take documented defaults.
package model
