package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/train"
)

// NodeConfig selects a node-classification model by name and holds the
// configuration of each kind; only the one named by Model is used.
type NodeConfig struct {
	Model  string // one of NodeModels()
	PRCaps PRCapsConfig
	GCN    GCNConfig
}

// NodeModels lists the node-classification models by command-line name.
func NodeModels() []string { return []string{"prcapsnet", "gcn"} }

// DefaultNodeConfig returns the model configuration and the training
// configuration that model uses by default (DESIGN §5 "Optimiser").
func DefaultNodeConfig(name string) (NodeConfig, train.Config, error) {
	name = strings.ToLower(name)
	cfg := NodeConfig{Model: name, PRCaps: DefaultPRCapsConfig(), GCN: DefaultGCNConfig()}
	switch name {
	case "prcapsnet":
		// The authors' code: AdamW lr 0.005, wd 5e-4, 200 epochs, clip 1.0.
		return cfg, train.Config{Epochs: 200, LR: 0.005, WeightDecay: 5e-4, Optimizer: "adamw", Clip: 1}, nil
	case "gcn":
		return cfg, train.DefaultConfig(), nil
	}
	return cfg, train.Config{}, fmt.Errorf("model: unknown node model %q (available: %s)", name, strings.Join(NodeModels(), ", "))
}

// NewNodeModel builds the model cfg names for ds, initialised from seed.
func NewNodeModel(ds *data.NodeDataset, cfg NodeConfig, seed uint64) (train.NodeModel, error) {
	switch strings.ToLower(cfg.Model) {
	case "prcapsnet":
		return NewPRCapsNet(ds, cfg.PRCaps, seed)
	case "gcn":
		return NewGCN(ds, cfg.GCN, seed)
	}
	if !slices.Contains(NodeModels(), cfg.Model) {
		return nil, fmt.Errorf("model: unknown node model %q (available: %s)", cfg.Model, strings.Join(NodeModels(), ", "))
	}
	return nil, fmt.Errorf("model: %s cannot be built", cfg.Model)
}
