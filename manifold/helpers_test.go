package manifold

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// testDims covers t = 1, s = 0 and the model's default s = t = 9.
var testDims = []Dims{{S: 9, T: 9}, {S: 3, T: 1}, {S: 0, T: 5}, {S: 2, T: 1}, {S: 0, T: 1}}

// testBetas spans the curvatures the brief asks for, −0.01 … −100.
var testBetas = []float64{-0.01, -0.3, -1, -4, -100}

const testSeeds = 5

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

func caseName(d Dims, beta float64, seed uint64) string {
	return fmt.Sprintf("s%d_t%d_beta%g_seed%d", d.S, d.T, beta, seed)
}

// forCases runs f for every Dims × β × seed.
func forCases(t *testing.T, f func(t *testing.T, d Dims, beta float64, rng *rand.Rand)) {
	t.Helper()
	for _, d := range testDims {
		for _, beta := range testBetas {
			for seed := uint64(0); seed < testSeeds; seed++ {
				t.Run(caseName(d, beta, seed), func(t *testing.T) { f(t, d, beta, newRNG(seed)) })
			}
		}
	}
}

func randUnit(rng *rand.Rand, n int) []float64 {
	for {
		u := make([]float64, n)
		for i := range u {
			u[i] = rng.NormFloat64()
		}
		if m := norm(u); m > 1e-3 {
			for i := range u {
				u[i] /= m
			}
			return u
		}
	}
}

// randPointQ is ψ⁻¹(r·û, v) for a uniform û on S^t and v ~ N(0, vscale²):
// a point anywhere on Q (including near the antipode of the pole).
func randPointQ(rng *rand.Rand, d Dims, beta, vscale float64) []float64 {
	uv := make([]float64, d.Ambient())
	r := Radius(beta)
	for i, x := range randUnit(rng, d.T+1) {
		uv[i] = r * x
	}
	for i := d.T + 1; i < len(uv); i++ {
		uv[i] = vscale * rng.NormFloat64()
	}
	return PsiInv(uv, beta, d)
}

// randTangent returns ξ with ‖ξ_T‖ = r·θ, θ uniform in [θlo, θhi), and
// ξ_S ~ N(0, sscale²).
func randTangent(rng *rand.Rand, d Dims, beta, thLo, thHi, sscale float64) []float64 {
	r := Radius(beta)
	xi := make([]float64, d.Tangent())
	th := thLo + (thHi-thLo)*rng.Float64()
	for i, x := range randUnit(rng, d.T) {
		xi[i] = r * th * x
	}
	for i := d.T; i < len(xi); i++ {
		xi[i] = sscale * rng.NormFloat64()
	}
	return xi
}

// relDiff is ‖a−b‖/‖b‖ (0 when both are 0).
func relDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		panic("relDiff: length mismatch")
	}
	diff := make([]float64, len(a))
	for i := range a {
		diff[i] = a[i] - b[i]
	}
	nd, nb := norm(diff), norm(b)
	if nd == 0 {
		return 0
	}
	return nd / math.Max(nb, 1e-300)
}

// onQErr is |⟨x,x⟩ − β| / (1+‖x‖²), the brief's on-manifold measure.
func onQErr(x []float64, beta float64, d Dims) float64 {
	return math.Abs(Inner(x, x, d)-beta) / (1 + dot(x, x))
}

func denseOf[T Float](rows [][]float64) *tensor.Dense[T] {
	m := tensor.NewDense[T](len(rows), len(rows[0]))
	for i, r := range rows {
		for j, v := range r {
			m.Data[i*m.Cols+j] = T(v)
		}
	}
	return m
}

func rowOf[T Float](m *tensor.Dense[T], i int) []float64 {
	out := make([]float64, m.Cols)
	for j, v := range m.Row(i) {
		out[j] = float64(v)
	}
	return out
}

// roundTo rounds v to T and back, so that references see exactly the
// inputs a float32 op sees.
func roundTo[T Float](v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(T(x))
	}
	return out
}

func leaf[T Float](m *tensor.Dense[T], name string) *autodiff.Var[T] {
	v := autodiff.NewVar(m, true)
	v.Name = name
	return v
}

func scalarVar[T Float](x float64, name string) *autodiff.Var[T] {
	m := tensor.NewDense[T](1, 1)
	m.Data[0] = T(x)
	return leaf(m, name)
}

func allFinite[T Float](data []T) bool {
	for _, v := range data {
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}
