package tsne

import (
	"math"
	"slices"
	"testing"
)

func TestEmbedClusters(t *testing.T) {
	for _, tc := range []struct {
		name string
		seed uint64
		cfg  Config
	}{
		{"default_seed1", 1, Config{Seed: 1}},
		{"default_seed2", 2, Config{Seed: 2}},
		{"exact_seed3", 3, Config{Seed: 3, ExactGradient: true}},
		{"perp10_theta0.8", 4, Config{Seed: 4, Perplexity: 10, Theta: 0.8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, labels := gaussianClusters(newRNG(tc.seed), 5, 60, 20, 10)
			y, err := Embed(x, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(y) != len(x) {
				t.Fatalf("got %d map points, want %d", len(y), len(x))
			}
			var mx, my float64
			for _, p := range y {
				mx += p[0]
				my += p[1]
			}
			if c := math.Hypot(mx, my) / float64(len(y)); c > 1e-9 {
				t.Errorf("map centre at distance %g from the origin", c)
			}
			acc, err := KNNAccuracy(y, labels, 10)
			if err != nil {
				t.Fatal(err)
			}
			trust, err := Trustworthiness(x, y, 10)
			if err != nil {
				t.Fatal(err)
			}
			sil, err := Silhouette(y, labels)
			if err != nil {
				t.Fatal(err)
			}
			silX, err := Silhouette(x, labels)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("kNN accuracy (k=10) %.4f, trustworthiness (k=10) %.4f, silhouette map %.4f (input %.4f)", acc, trust, sil, silX)
			if acc < 0.95 {
				t.Errorf("kNN accuracy %.4f, want ≥ 0.95", acc)
			}
			if trust < 0.9 {
				t.Errorf("trustworthiness %.4f, want ≥ 0.9", trust)
			}
			if sil < 0.5 {
				t.Errorf("silhouette %.4f, want ≥ 0.5", sil)
			}
		})
	}
}

func TestEmbedDeterministic(t *testing.T) {
	x, _ := gaussianClusters(newRNG(8), 4, 50, 12, 6)
	cfg := Config{Seed: 42, Iterations: 400}
	a, err := embed(x, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 5} {
		b, err := embed(x, cfg, workers)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) {
			t.Errorf("workers=%d: output differs from the first run", workers)
		}
	}
	cfg.Seed = 43
	c, err := embed(x, cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a, c) {
		t.Error("seeds 42 and 43 give the same map")
	}
}

func TestEmbedDuplicates(t *testing.T) {
	// Many identical rows: the bandwidth search cannot reach the target
	// entropy and the quadtree has coincident points; the map must still
	// be finite.
	x := make([][]float64, 150)
	for i := range x {
		x[i] = []float64{float64(i % 3), 0, 1}
	}
	y, err := Embed(x, Config{Perplexity: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range y {
		if math.IsNaN(p[0]) || math.IsNaN(p[1]) || math.IsInf(p[0], 0) || math.IsInf(p[1], 0) {
			t.Fatalf("y[%d] = %v", i, p)
		}
	}
	acc, err := KNNAccuracy(y, func() []int {
		l := make([]int, len(x))
		for i := range l {
			l[i] = i % 3
		}
		return l
	}(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if acc < 0.99 {
		t.Errorf("kNN accuracy of three groups of duplicates %.3f, want 1", acc)
	}
}

func TestEmbedErrors(t *testing.T) {
	good, _ := gaussianClusters(newRNG(1), 2, 50, 3, 5)
	withRow := func(i int, row []float64) [][]float64 {
		x := slices.Clone(good)
		x[i] = row
		return x
	}
	for _, tc := range []struct {
		name string
		x    [][]float64
		cfg  Config
		subs []string
	}{
		{"nil", nil, Config{}, []string{"no points"}},
		{"empty", [][]float64{}, Config{}, []string{"no points"}},
		{"no_columns", [][]float64{{}, {}}, Config{}, []string{"no coordinates"}},
		{"ragged", withRow(7, []float64{1, 2}), Config{}, []string{"ragged", "row 7", "2 coordinates"}},
		{"nan", withRow(3, []float64{0, math.NaN(), 0}), Config{}, []string{"x[3][1]", "NaN"}},
		{"inf", withRow(99, []float64{0, 0, math.Inf(-1)}), Config{}, []string{"x[99][2]", "-Inf"}},
		{"perplexity_too_large", good, Config{Perplexity: 33}, []string{"Perplexity", "too large", "100 points"}},
		{"perplexity_default_too_large", good[:91], Config{}, []string{"Perplexity 30", "91 points"}},
		{"bad_config", good, Config{Theta: -1}, []string{"Theta"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y, err := Embed(tc.x, tc.cfg)
			wantErr(t, err, tc.subs...)
			if y != nil {
				t.Errorf("got a map with an error")
			}
		})
	}
	// N−1 = 3·Perplexity exactly is still too small; one more point is fine.
	if _, err := Embed(good[:91], Config{Iterations: 1}); err == nil {
		t.Error("N = 91, perplexity 30: want an error")
	}
	if _, err := Embed(good[:92], Config{Iterations: 1}); err != nil {
		t.Errorf("N = 92, perplexity 30: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		field string // "" for valid
	}{
		{"zero", Config{}, ""},
		{"full", Config{Perplexity: 50, Iterations: 10, LearningRate: 200, EarlyExaggeration: 4,
			ExaggerationIterations: 100, InitialMomentum: 0.3, FinalMomentum: 0.9, Theta: 1, Seed: 7}, ""},
		{"perplexity_negative", Config{Perplexity: -1}, "Perplexity"},
		{"perplexity_below_1", Config{Perplexity: 0.5}, "Perplexity"},
		{"perplexity_nan", Config{Perplexity: math.NaN()}, "Perplexity"},
		{"iterations", Config{Iterations: -1}, "Iterations"},
		{"learning_rate", Config{LearningRate: math.Inf(1)}, "LearningRate"},
		{"exaggeration", Config{EarlyExaggeration: 0.5}, "EarlyExaggeration"},
		{"exaggeration_iterations", Config{ExaggerationIterations: -3}, "ExaggerationIterations"},
		{"initial_momentum", Config{InitialMomentum: 1}, "InitialMomentum"},
		{"final_momentum", Config{FinalMomentum: -0.1}, "FinalMomentum"},
		{"theta_large", Config{Theta: 1.5}, "Theta"},
		{"theta_nan", Config{Theta: math.NaN()}, "Theta"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			wantErr(t, err, "Config."+tc.field)
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	c := Config{}.withDefaults()
	want := Config{Perplexity: 30, Iterations: 1000, EarlyExaggeration: 12, ExaggerationIterations: 250,
		InitialMomentum: 0.5, FinalMomentum: 0.8, Theta: 0.5}
	if c != want {
		t.Errorf("defaults %+v, want %+v", c, want)
	}
	if c := (Config{Theta: 0.3, ExactGradient: true}).withDefaults(); c.Theta != 0 {
		t.Errorf("ExactGradient: Theta %v, want 0", c.Theta)
	}
	for _, tc := range []struct {
		n    int
		rate float64
		want float64
	}{
		{100, 0, 50}, {2400, 0, 50}, {2401, 0, 2401.0 / 48}, {20000, 0, 20000.0 / 48}, {20000, 200, 200},
	} {
		if got := (Config{LearningRate: tc.rate}).withDefaults().learningRate(tc.n); got != tc.want {
			t.Errorf("n=%d rate=%v: learning rate %v, want %v", tc.n, tc.rate, got, tc.want)
		}
	}
}
