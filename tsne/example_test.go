package tsne_test

import (
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/prcaps/prcaps/tsne"
)

// Embed three Gaussian clusters in 10 dimensions into the plane and measure
// how well the map keeps them apart.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	var x [][]float64
	var labels []int
	for c := range 3 {
		for range 40 {
			row := make([]float64, 10)
			for j := range row {
				row[j] = rng.NormFloat64()
			}
			row[c] += 8 // cluster centres 8√2 apart
			x = append(x, row)
			labels = append(labels, c)
		}
	}

	y, err := tsne.Embed(x, tsne.Config{Perplexity: 10, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}

	acc, err := tsne.KNNAccuracy(y, labels, 5)
	if err != nil {
		log.Fatal(err)
	}
	trust, err := tsne.Trustworthiness(x, y, 5)
	if err != nil {
		log.Fatal(err)
	}
	sil, err := tsne.Silhouette(y, labels)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d map points\n", len(y))
	fmt.Printf("5-NN accuracy %.2f\n", acc)
	fmt.Printf("trustworthiness ≥ 0.9: %t\n", trust >= 0.9)
	fmt.Printf("silhouette ≥ 0.5: %t\n", sil >= 0.5)
	// Output:
	// 120 map points
	// 5-NN accuracy 1.00
	// trustworthiness ≥ 0.9: true
	// silhouette ≥ 0.5: true
}
