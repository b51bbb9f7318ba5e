package tsne

import (
	"fmt"
	"math"
)

// Defaults used for the zero value of the corresponding Config field.
const (
	DefaultPerplexity             = 30
	DefaultIterations             = 1000
	DefaultEarlyExaggeration      = 12
	DefaultExaggerationIterations = 250
	DefaultInitialMomentum        = 0.5
	DefaultFinalMomentum          = 0.8
	DefaultTheta                  = 0.5
)

// Constants of the optimiser that are not configurable. They are the values
// of the reference implementation.
const (
	gainIncrease = 0.2  // added to a gain when the gradient changes sign
	gainDecrease = 0.8  // multiplies a gain when the gradient keeps its sign
	minGain      = 0.01 // gains never fall below this
	initStd      = 1e-4 // standard deviation of the initial positions
	minAutoRate  = 50   // lower bound of the automatic learning rate
)

// Config holds the parameters of Embed. The zero value of every field
// selects its default, so Config{} is the standard Barnes-Hut t-SNE setting
// and a Config literal needs to name only what it changes. Negative (and,
// for floating-point fields, NaN or infinite) values are invalid.
type Config struct {
	// Perplexity is the effective number of neighbours of each point in
	// the input affinities. Each point's Gaussian bandwidth is calibrated
	// so that the entropy of its conditional distribution is
	// ln(Perplexity), over its ⌊3·Perplexity⌋ nearest neighbours. It must
	// be at least 1 and the number of points N must satisfy
	// N−1 > 3·Perplexity. Default 30.
	Perplexity float64

	// Iterations is the total number of gradient-descent iterations,
	// including the early-exaggeration phase. Default 1000.
	Iterations int

	// LearningRate is the gradient-descent step size η. The default is
	// the "auto" rate of openTSNE and scikit-learn ≥ 1.2,
	// η = max(N / EarlyExaggeration / 4, 50), where N is the number of
	// points. (The gradient includes the factor 4 of the KL gradient, as
	// in scikit-learn; openTSNE omits it and uses N / EarlyExaggeration,
	// which is the same step.)
	LearningRate float64

	// EarlyExaggeration multiplies the input affinities during the first
	// ExaggerationIterations iterations. Default 12. A value of 1 turns
	// early exaggeration off.
	EarlyExaggeration float64

	// ExaggerationIterations is the length of the early-exaggeration
	// phase. The momentum switches from InitialMomentum to FinalMomentum
	// at the same iteration. Default 250.
	ExaggerationIterations int

	// InitialMomentum is the momentum of the early-exaggeration phase,
	// in [0, 1). Default 0.5.
	InitialMomentum float64

	// FinalMomentum is the momentum after the early-exaggeration phase,
	// in [0, 1). Default 0.8.
	FinalMomentum float64

	// Theta is the Barnes-Hut accuracy parameter: a quadtree cell of side
	// length s whose centre of mass is at distance d from a point is
	// summarised as one body when s/d < Theta. Theta = 0 gives the exact
	// O(N²) repulsive forces. Default 0.5; the valid range is [0, 1].
	// Set ExactGradient to request Theta = 0, because the zero value
	// selects the default.
	Theta float64

	// ExactGradient forces Theta = 0 (exact repulsive forces). It is
	// meant for small N and for tests.
	ExactGradient bool

	// Seed seeds the initial positions and the vantage-point tree. Equal
	// seeds give bit-identical embeddings for the same input on the same
	// platform, whatever the number of goroutines.
	Seed uint64
}

// Validate reports the first invalid field of c, naming it, or nil. It does
// not check the constraints that depend on the input (N−1 > 3·Perplexity);
// Embed does.
func (c Config) Validate() error {
	checkFloat := func(name string, v float64) error {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("tsne: Config.%s is %v, want a finite number", name, v)
		case v < 0:
			return fmt.Errorf("tsne: Config.%s is %v, want ≥ 0 (0 selects the default)", name, v)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"Perplexity", c.Perplexity},
		{"LearningRate", c.LearningRate},
		{"EarlyExaggeration", c.EarlyExaggeration},
		{"InitialMomentum", c.InitialMomentum},
		{"FinalMomentum", c.FinalMomentum},
		{"Theta", c.Theta},
	} {
		if err := checkFloat(f.name, f.v); err != nil {
			return err
		}
	}
	switch {
	case c.Iterations < 0:
		return fmt.Errorf("tsne: Config.Iterations is %d, want ≥ 0 (0 selects the default)", c.Iterations)
	case c.ExaggerationIterations < 0:
		return fmt.Errorf("tsne: Config.ExaggerationIterations is %d, want ≥ 0 (0 selects the default)", c.ExaggerationIterations)
	case c.Perplexity != 0 && c.Perplexity < 1:
		return fmt.Errorf("tsne: Config.Perplexity is %v, want ≥ 1", c.Perplexity)
	case c.EarlyExaggeration != 0 && c.EarlyExaggeration < 1:
		return fmt.Errorf("tsne: Config.EarlyExaggeration is %v, want ≥ 1", c.EarlyExaggeration)
	case c.InitialMomentum >= 1:
		return fmt.Errorf("tsne: Config.InitialMomentum is %v, want < 1", c.InitialMomentum)
	case c.FinalMomentum >= 1:
		return fmt.Errorf("tsne: Config.FinalMomentum is %v, want < 1", c.FinalMomentum)
	case c.Theta > 1:
		return fmt.Errorf("tsne: Config.Theta is %v, want ≤ 1", c.Theta)
	}
	return nil
}

// withDefaults returns c with every zero field replaced by its default.
// The learning rate, which depends on N, is left to learningRate.
func (c Config) withDefaults() Config {
	if c.Perplexity == 0 {
		c.Perplexity = DefaultPerplexity
	}
	if c.Iterations == 0 {
		c.Iterations = DefaultIterations
	}
	if c.EarlyExaggeration == 0 {
		c.EarlyExaggeration = DefaultEarlyExaggeration
	}
	if c.ExaggerationIterations == 0 {
		c.ExaggerationIterations = DefaultExaggerationIterations
	}
	if c.InitialMomentum == 0 {
		c.InitialMomentum = DefaultInitialMomentum
	}
	if c.FinalMomentum == 0 {
		c.FinalMomentum = DefaultFinalMomentum
	}
	if c.ExactGradient {
		c.Theta = 0
	} else if c.Theta == 0 {
		c.Theta = DefaultTheta
	}
	return c
}

// learningRate returns the configured rate or the automatic one for n
// points; c must have its defaults filled in.
func (c Config) learningRate(n int) float64 {
	if c.LearningRate != 0 {
		return c.LearningRate
	}
	return math.Max(float64(n)/c.EarlyExaggeration/4, minAutoRate)
}

// neighbours returns the number of nearest neighbours, ⌊3·perplexity⌋, over
// which the input affinities of each point are computed.
func neighbours(perplexity float64) int { return int(math.Floor(3 * perplexity)) }
