package capsule

import (
	"math"
	"math/rand/v2"
	"runtime/debug"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
)

// Shared helpers of the PRCC, Euclidean routing and tangent GCN tests
// (prefixed pcc to stay clear of other test files of the package).

// pccRaceEnabled reports whether the test binary runs under the race
// detector, where allocation counts are meaningless (see autodiff's tests).
func pccRaceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// pccTol is the tolerance of a float type: forward agreement with the
// float64 reference (relative to 1+|want|) and the gradient-check bound with
// its finite-difference step.
type pccTol struct {
	fwd, grad, step float64
}

func pccTolOf[T autodiff.Float]() pccTol {
	var z T
	if _, ok := any(z).(float32); ok {
		return pccTol{fwd: 2e-4, grad: 1e-3, step: 1e-2}
	}
	return pccTol{fwd: 1e-10, grad: 1e-6, step: 1e-6}
}

// pccLeaf returns a rows×cols Var holding data (row-major float64).
func pccLeaf[T autodiff.Float](name string, rows, cols int, data []float64, grad bool) *autodiff.Var[T] {
	v := autodiff.NewParam[T](name, rows, cols)
	if !grad {
		v = autodiff.NewVar(&v.Value, false)
		v.Name = name
	}
	for i, x := range data {
		v.Value.Data[i] = T(x)
	}
	return v
}

// pccData returns the Var's value as float64.
func pccData[T autodiff.Float](v *autodiff.Var[T]) []float64 {
	out := make([]float64, len(v.Value.Data))
	for i, x := range v.Value.Data {
		out[i] = float64(x)
	}
	return out
}

// pccPoints returns n generic points of Q (row-major n×D): exp̂_o of tangent
// vectors with ‖ξ_T‖ uniform in [0.1, 2.5]·r (away from the antipode) and
// ξ_S ~ N(0, 1), redrawn while |g(ξ,ξ)| < 0.2‖ξ‖², i.e. away from the light
// cone, where the alignment is so curved that float32 finite differences
// (step 1e-2) are inaccurate. (loĝ_o(exp̂_o(ξ)) = ξ, so PRCC sees z = ξ.)
func pccPoints(rng *rand.Rand, dims manifold.Dims, beta float64, n int) []float64 {
	r := manifold.Radius(beta)
	out := make([]float64, 0, n*dims.Ambient())
	xi := make([]float64, dims.Tangent())
	for k := 0; k < n; k++ {
		nt := 0.0
		for j := 0; j < dims.T; j++ {
			xi[j] = rng.NormFloat64()
			nt += xi[j] * xi[j]
		}
		th := (0.1 + 2.4*rng.Float64()) * r / math.Sqrt(nt)
		for j := 0; j < dims.T; j++ {
			xi[j] *= th
		}
		for j := dims.T; j < len(xi); j++ {
			xi[j] = rng.NormFloat64()
		}
		n2 := 0.0
		for _, x := range xi {
			n2 += x * x
		}
		if math.Abs(manifold.TangentMetric(xi, xi, dims)) < 0.2*n2 {
			k--
			continue
		}
		out = append(out, manifold.ExpOVec(xi, beta, dims)...)
	}
	return out
}

// pccRows splits row-major data into rows of width w.
func pccRows(data []float64, w int) [][]float64 {
	rows := make([][]float64, len(data)/w)
	for i := range rows {
		rows[i] = data[i*w : (i+1)*w]
	}
	return rows
}

// pccCheckClose fails when got and want differ beyond tol·(1+|want|).
func pccCheckClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(got[i] - want[i]); !(d <= tol*(1+math.Abs(want[i]))) {
			t.Fatalf("%s[%d] = %.10g, want %.10g (|Δ| = %.3g)", what, i, got[i], want[i], d)
		}
	}
}

// pccGradCheck runs autodiff.GradCheck with the type's step and bound.
func pccGradCheck[T autodiff.Float](t *testing.T, what string, build func(tp *autodiff.Tape[T]) *autodiff.Var[T], inputs []*autodiff.Var[T]) {
	t.Helper()
	tol := pccTolOf[T]()
	rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[T]) (*autodiff.Var[T], error) { return build(tp), nil }, inputs, tol.step)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if rel > tol.grad {
		t.Errorf("%s: relative gradient error %.3g > %g", what, rel, tol.grad)
	}
}

// pccFinite fails if any value or gradient of vs is NaN or infinite.
func pccFinite[T autodiff.Float](t *testing.T, what string, vs ...*autodiff.Var[T]) {
	t.Helper()
	for _, v := range vs {
		for i, x := range v.Value.Data {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("%s: %s value[%d] = %v", what, v.Name, i, x)
			}
		}
		for i, x := range v.Grad.Data {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("%s: %s grad[%d] = %v", what, v.Name, i, x)
			}
		}
	}
}

// pccRandomGraph returns a random undirected graph on n nodes with about m
// edges (no self-loops) as sorted CSR by target.
func pccRandomGraph(rng *rand.Rand, n, m int) (ptr, src []int32) {
	nb := make([]map[int32]bool, n)
	for i := range nb {
		nb[i] = map[int32]bool{}
	}
	for k := 0; k < m; k++ {
		a, b := rng.IntN(n), rng.IntN(n)
		if a == b {
			continue
		}
		nb[a][int32(b)], nb[b][int32(a)] = true, true
	}
	ptr = make([]int32, n+1)
	for v := 0; v < n; v++ {
		for u := 0; u < n && len(nb[v]) > 0; u++ {
			if nb[v][int32(u)] {
				src = append(src, int32(u))
			}
		}
		ptr[v+1] = int32(len(src))
	}
	return ptr, src
}

// pccSparseGraph is pccRandomGraph for large n (sorting each neighbour set
// instead of scanning all nodes).
func pccSparseGraph(rng *rand.Rand, n, m int) (ptr, src []int32) {
	nb := make([][]int32, n)
	seen := map[[2]int32]bool{}
	for len(seen) < 2*m {
		a, b := int32(rng.IntN(n)), int32(rng.IntN(n))
		if a == b || seen[[2]int32{a, b}] {
			continue
		}
		seen[[2]int32{a, b}], seen[[2]int32{b, a}] = true, true
		nb[a] = append(nb[a], b)
		nb[b] = append(nb[b], a)
	}
	ptr = make([]int32, n+1)
	for v := 0; v < n; v++ {
		l := nb[v]
		for i := 1; i < len(l); i++ { // insertion sort: degrees are small
			for j := i; j > 0 && l[j] < l[j-1]; j-- {
				l[j], l[j-1] = l[j-1], l[j]
			}
		}
		src = append(src, l...)
		ptr[v+1] = int32(len(src))
	}
	return ptr, src
}
