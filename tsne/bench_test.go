package tsne

import (
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkEmbed times a full default run (1000 iterations) on n points
// in 64 dimensions drawn from 10 Gaussian clusters, the shape of the node
// embeddings the package is meant for.
func BenchmarkEmbed(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			x, _ := gaussianClusters(newRNG(uint64(n)), 10, n/10, 64, 10)
			for b.Loop() {
				if _, err := Embed(x, Config{Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAffinities times the neighbour search and bandwidth calibration
// alone.
func BenchmarkAffinities(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			x, _ := gaussianClusters(newRNG(uint64(n)), 10, n/10, 64, 10)
			pl := newPool(runtime.GOMAXPROCS(0))
			defer pl.close()
			for b.Loop() {
				affinities(x, DefaultPerplexity, newRNG(1), pl)
			}
		})
	}
}
