package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bnData is random float32 rows (and float64 column statistics) for the
// batch-norm kernels, with some large and tiny values so that rounding
// differences would show.
func bnData(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3)))
	}
	return x
}

// The vector kernels give the bits of the plain loops (run here by
// calling them with column counts the vector paths refuse, then with the
// same data through the vector paths), for every shape the paths split.
func TestBatchNormKernelsMatchLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, cols := range []int{4, 8, 12, 64, 72} {
		for _, rows := range []int{1, 3, 37} {
			n := rows * cols
			x, g, xh := bnData(rng, n), bnData(rng, n), bnData(rng, n)
			mu64 := make([]float64, cols)
			for c := range mu64 {
				mu64[c] = rng.NormFloat64()
			}
			cs := make([][]float32, 4)
			for k := range cs {
				cs[k] = bnData(rng, cols)
			}

			// Reference: the loops, as the portable path runs them.
			refSq, refProd := make([]float64, cols), make([]float64, cols)
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					d := float64(x[r*cols+c]) - mu64[c]
					refSq[c] += d * d
					refProd[c] += float64(g[r*cols+c]) * float64(xh[r*cols+c])
				}
			}
			refY, refXh, refDx := make([]float32, n), make([]float32, n), slices.Clone(x)
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					i := r*cols + c
					h := (x[i] - cs[0][c]) * cs[1][c]
					refXh[i], refY[i] = h, h*cs[2][c]+cs[3][c]
					refDx[i] += cs[0][c] * (g[i] - cs[1][c] - xh[i]*cs[2][c])
				}
			}

			sq, prod := make([]float64, cols), make([]float64, cols)
			SumSqDevRowsWiden(sq, mu64, x)
			SumProdRowsWiden(prod, g, xh)
			y, xhat, dx := make([]float32, n), make([]float32, n), slices.Clone(x)
			NormalizeRows(y, xhat, x, cs[0], cs[1], cs[2], cs[3])
			NormalizeGradRows(dx, g, xh, cs[0], cs[1], cs[2])
			if !bitsEqual64(sq, refSq) || !bitsEqual64(prod, refProd) {
				t.Errorf("%d×%d: widened sums differ from the loops", rows, cols)
			}
			if !bitsEqual32(y, refY) || !bitsEqual32(xhat, refXh) || !bitsEqual32(dx, refDx) {
				t.Errorf("%d×%d: normalisation or its gradient differs from the loops", rows, cols)
			}
		}
	}
}

func bitsEqual64(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

func bitsEqual32(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}

// BenchmarkBatchNormKernels runs the four kernels on a GIN mini-batch of
// NCI1 (32 graphs, about 960 nodes × 64 features).
func BenchmarkBatchNormKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows, cols = 960, 64
	x, g, xh := bnData(rng, rows*cols), bnData(rng, rows*cols), bnData(rng, rows*cols)
	mu, acc := make([]float64, cols), make([]float64, cols)
	c := bnData(rng, cols)
	y, out := make([]float32, rows*cols), make([]float32, rows*cols)
	for b.Loop() {
		SumRowsWiden(acc, x)
		SumSqDevRowsWiden(acc, mu, x)
		NormalizeRows(y, out, x, c, c, c, c)
		SumProdRowsWiden(acc, g, xh)
		NormalizeGradRows(out, g, xh, c, c, c)
	}
}
