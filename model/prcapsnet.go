package model

import (
	"fmt"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/train"
)

// NewPRCapsNet builds the PR-CapsNet node network for ds.
func NewPRCapsNet(ds *data.NodeDataset, cfg PRCapsConfig, seed uint64) (train.NodeModel, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("model: prcapsnet: %w", err)
	}
	return nil, fmt.Errorf("model: prcapsnet: the routing layers are not assembled yet")
}
