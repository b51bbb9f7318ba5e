package model_test

import (
	"math"
	"slices"
	"testing"

	"github.com/prcaps/prcaps/capsule"
	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/model"
	"github.com/prcaps/prcaps/option"
	"github.com/prcaps/prcaps/train"
)

// unreadValues are values other than the defaults for every option that
// some routing kind or classifier leaves unread.
var unreadValues = map[string]string{
	"k": "2", "iters": "2", "activation": "tanh", "coupling": "parents", "detach-b": "true",
	"routing-init": "torch", "no-gate-c": "true", "no-gate-a": "true", "no-gate-r": "true", "prcc-scale": "3",
}

// twoEpochs trains cfg for two epochs on Cora's public split and returns
// the validation loss and the parameter count.
func twoEpochs(t *testing.T, ds *data.NodeDataset, cfg model.PRCapsConfig) (float64, int) {
	t.Helper()
	m, err := model.NewPRCapsNet(cfg, model.NodeShape(ds), 1)
	if err != nil {
		t.Fatal(err)
	}
	tc := train.Recipe(data.NodeTask, "prcapsnet")
	tc.Epochs = 2
	r, err := train.RunNode(m, ds, *ds.Public, tc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.ValLoss, model.CountParams(m)
}

// The options PRCapsConfig.Unread lists change nothing: under every
// routing kind, and the linear classifier, two epochs with each of them
// set otherwise give the default's parameters and validation loss to the
// bit. Under ACR with PRCC, which reads them all, each one changes them,
// so the comparison can fail.
func TestPRCapsUnreadOptionsChangeNothing(t *testing.T) {
	ds := model.LoadEmbeddedCora(t)
	type setting struct {
		kind model.Routing
		cl   model.Classifier
	}
	settings := []setting{{capsule.ACR, model.ClassifierLinear}}
	for _, k := range capsule.Kinds() {
		settings = append(settings, setting{k, model.ClassifierPRCC})
	}
	for _, s := range settings {
		base := model.DefaultPRCapsConfig()
		base.Routing, base.Classifier = s.kind, s.cl
		loss, params := twoEpochs(t, ds, base)
		for name := range base.Unread() {
			v, ok := unreadValues[name]
			if !ok {
				t.Fatalf("%s, %s: no test value for unread option %q", s.kind, s.cl, name)
			}
			cfg := base
			if err := option.Set(&cfg, name, v); err != nil {
				t.Fatal(err)
			}
			if l, p := twoEpochs(t, ds, cfg); math.Float64bits(l) != math.Float64bits(loss) || p != params {
				t.Errorf("routing %s, %s classifier: --%s %s, which it does not read, moved the validation loss %v → %v, parameters %d → %d", s.kind, s.cl, name, v, loss, l, params, p)
			}
		}
	}
	base := model.DefaultPRCapsConfig()
	if u := base.Unread(); len(u) != 0 {
		t.Fatalf("the default configuration leaves %v unread", u)
	}
	loss, params := twoEpochs(t, ds, base)
	names := make([]string, 0, len(unreadValues))
	for name := range unreadValues {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		cfg := base
		if err := option.Set(&cfg, name, unreadValues[name]); err != nil {
			t.Fatal(err)
		}
		if l, p := twoEpochs(t, ds, cfg); math.Float64bits(l) == math.Float64bits(loss) && p == params {
			t.Errorf("acr, prcc: --%s %s changed nothing, though it is read", name, unreadValues[name])
		}
	}
}

// TGNN's heads are read by its GAT layers alone.
func TestTGNNUnreadHeads(t *testing.T) {
	cfg := model.DefaultTGNNConfig()
	for _, conv := range []model.Conv{model.ConvGCN, model.ConvSAGE, model.ConvGAT} {
		cfg.Conv = conv
		_, unread := cfg.Unread()["heads"]
		if unread != (conv != model.ConvGAT) {
			t.Errorf("conv %v: heads unread %v", conv, unread)
		}
	}
}
