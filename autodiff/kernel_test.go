package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// The bandwidth input is shifted to [1.5, 2.5] by AddScalar: γ must be
// positive, and the harness fills every input uniformly in [−1, 1].
func ewtKernelCases[T Float]() []ewtCase[T] {
	gamma := func(tp *Tape[T], g *Var[T]) *Var[T] { return AddScalar(tp, g, 2) }
	// Segments of 3, 0, 1 and 3 rows: an empty one and a single row too.
	seg := []int32{0, 3, 3, 4, 7}
	return []ewtCase[T]{
		{name: "GaussianKernel", shapes: [][2]int{{4, 3}, {5, 3}, {1, 1}}, build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return GaussianKernel(tp, in[0], in[1], gamma(tp, in[2]))
		}},
		// One Var on both sides: its gradient gathers both paths.
		{name: "GaussianKernel/self", shapes: [][2]int{{4, 2}, {1, 1}}, build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return GaussianKernel(tp, in[0], in[0], gamma(tp, in[1]))
		}},
		{name: "SegmentKernelMean", shapes: [][2]int{{7, 3}, {1, 1}}, build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
			return SegmentKernelMean(tp, in[0], gamma(tp, in[1]), seg)
		}},
		// GRDL's use: the MMD of each segment's rows to a reference set,
		// √(E k(x, x') + E k(y, y') − 2 E k(x, y)).
		{name: "MMD", shapes: [][2]int{{7, 3}, {4, 3}, {1, 1}}, build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
			g := gamma(tp, in[2])
			s := []int32{0, 3, 4, 7}
			c := tensor.NewDense[T](3, 1) // 1/n per segment
			c.Data[0], c.Data[1], c.Data[2] = T(1.0/3), 1, T(1.0/3)
			inv := NewVar(c, false)
			xx := SegmentKernelMean(tp, in[0], g, s)
			yy := Mean(tp, GaussianKernel(tp, in[1], in[1], g))
			xy := Mul(tp, RowMean(tp, ScatterAddRows(tp, GaussianKernel(tp, in[0], in[1], g), s)), inv)
			return Sqrt(tp, Sub(tp, Add(tp, xx, yy), Scale(tp, xy, 2)), 1e-6)
		}},
	}
}

func TestKernelGradients(t *testing.T) {
	ewtRunBoth(t, ewtKernelCases[float64], ewtKernelCases[float32])
}

// The values against the definitions, on points whose distances are known.
func TestKernelForward(t *testing.T) {
	x := NewVar(tensor.FromRows([][]float64{{0, 0}, {1, 0}, {3, 4}}), false)
	y := NewVar(tensor.FromRows([][]float64{{0, 1}}), false)
	g := NewVar(tensor.FromRows([][]float64{{2}}), false)
	var tp Tape[float64]
	k := GaussianKernel(&tp, x, y, g)
	want := []float64{math.Exp(-1.0 / 2), math.Exp(-2.0 / 2), math.Exp(-18.0 / 2)}
	for i, w := range want {
		if math.Abs(k.Value.Data[i]-w) > 1e-15 {
			t.Errorf("GaussianKernel[%d] = %v, want %v", i, k.Value.Data[i], w)
		}
	}
	m := SegmentKernelMean(&tp, x, g, []int32{0, 2, 2, 3})
	// Segment 0: k = 1, 1 on the diagonal and e^{−1/2} twice off it.
	want = []float64{(2 + 2*math.Exp(-0.5)) / 4, 0, 1}
	for i, w := range want {
		if math.Abs(m.Value.Data[i]-w) > 1e-15 {
			t.Errorf("SegmentKernelMean[%d] = %v, want %v", i, m.Value.Data[i], w)
		}
	}
	// SegmentKernelMean equals the block means of the full kernel matrix.
	full := GaussianKernel(&tp, x, x, g)
	if got, w := m.Value.Data[0], (full.Value.Data[0]+full.Value.Data[1]+full.Value.Data[3]+full.Value.Data[4])/4; math.Abs(got-w) > 1e-15 {
		t.Errorf("segment 0: %v, block mean of the kernel matrix %v", got, w)
	}
}

// kernelRef is the slow, obvious definition the matrix-product kernels
// are checked against: for every pair, its squared distance summed
// directly in float64 and math.Exp; the gradients of L = Σ_ij G_ij K_ij
// (G the upstream gradient) by the chain rule, pair by pair.
func kernelRef(x, y [][]float64, gamma float64, G [][]float64) (K, dx, dy [][]float64, dg float64) {
	d := len(x[0])
	K, dx, dy = make([][]float64, len(x)), make([][]float64, len(x)), make([][]float64, len(y))
	for j := range y {
		dy[j] = make([]float64, d)
	}
	for i, xi := range x {
		K[i], dx[i] = make([]float64, len(y)), make([]float64, d)
		for j, yj := range y {
			s := 0.0
			for k := range xi {
				s += (xi[k] - yj[k]) * (xi[k] - yj[k])
			}
			K[i][j] = math.Exp(-s / gamma)
			w := G[i][j] * K[i][j]
			dg += w * s / (gamma * gamma)
			for k := range xi {
				dx[i][k] -= 2 / gamma * w * (xi[k] - yj[k])
				dy[j][k] += 2 / gamma * w * (xi[k] - yj[k])
			}
		}
	}
	return K, dx, dy, dg
}

// TestKernelsAgainstReference compares GaussianKernel and
// SegmentKernelMean, values and gradients, with kernelRef on sizes that
// span several blocks of kernelCols columns and segmentBlock rows, in
// float64 (to 1e-9) and float32 (to 1e-4 of the largest value).
func TestKernelsAgainstReference(t *testing.T) {
	t.Run("float64", func(t *testing.T) { kernelsAgainstRef[float64](t, 1e-9) })
	t.Run("float32", func(t *testing.T) { kernelsAgainstRef[float32](t, 1e-4) })
}

func kernelsAgainstRef[T Float](t *testing.T, tol float64) {
	const n, m, d, gamma = 300, 150, 5, 3.0
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func(r int) ([][]float64, *Var[T]) {
		rows := make([][]float64, r)
		v := NewParam[T]("x", r, d)
		for i := range rows {
			rows[i] = make([]float64, d)
			for k := range rows[i] {
				f := T(rng.NormFloat64())
				rows[i][k], v.Value.Data[i*d+k] = float64(f), f
			}
		}
		return rows, v
	}
	xs, x := mk(n)
	ys, y := mk(m)
	g := NewParam[T]("gamma", 1, 1)
	g.Value.Data[0] = gamma
	check := func(what string, got []T, want []float64) {
		t.Helper()
		scale := 0.0
		for _, w := range want {
			scale = max(scale, math.Abs(w))
		}
		for i, w := range want {
			if math.Abs(float64(got[i])-w) > tol*max(scale, 1e-300) {
				t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], w)
			}
		}
	}
	flat := func(rows [][]float64) []float64 {
		var f []float64
		for _, r := range rows {
			f = append(f, r...)
		}
		return f
	}

	// GaussianKernel, with an upstream gradient of mixed signs.
	G := make([][]float64, n)
	seed := tensor.NewDense[T](n, m)
	for i := range G {
		G[i] = make([]float64, m)
		for j := range G[i] {
			G[i][j] = float64(T(rng.NormFloat64()))
			seed.Data[i*m+j] = T(G[i][j])
		}
	}
	var tp Tape[T]
	K := GaussianKernel(&tp, x, y, g)
	if err := tp.BackwardSeeded(K, seed); err != nil {
		t.Fatal(err)
	}
	wK, wdx, wdy, wdg := kernelRef(xs, ys, gamma, G)
	check("K", K.Value.Data, flat(wK))
	check("∂x", x.Grad.Data, flat(wdx))
	check("∂y", y.Grad.Data, flat(wdy))
	check("∂γ", g.Grad.Data, []float64{wdg})

	// SegmentKernelMean over segments of 0, 1, 129 and 170 rows: the mean
	// of the reference's block of each segment with itself, whose
	// gradient is the reference's ∂x plus ∂y with G = c_s/n_s².
	seg := []int32{0, 0, 1, 130, 300}
	c := []float64{0.7, -1.3, 0.9, 2.1}
	x.Grad.Zero()
	g.Grad.Zero()
	var tp2 Tape[T]
	S := SegmentKernelMean(&tp2, x, g, seg)
	sd := tensor.NewDense[T](4, 1)
	for s := range c {
		sd.Data[s] = T(c[s])
	}
	if err := tp2.BackwardSeeded(S, sd); err != nil {
		t.Fatal(err)
	}
	wantS, wantDX, wantDG := make([]float64, 4), make([]float64, n*d), 0.0
	for s := range c {
		a, b := seg[s], seg[s+1]
		k := int(b - a)
		if k == 0 {
			continue
		}
		rows := xs[a:b]
		Gs := make([][]float64, k)
		for i := range Gs {
			Gs[i] = make([]float64, k)
			for j := range Gs[i] {
				Gs[i][j] = c[s] / float64(k*k)
			}
		}
		Ks, dxs, dys, dgs := kernelRef(rows, rows, gamma, Gs)
		for i := range Ks {
			for j := range Ks[i] {
				wantS[s] += Ks[i][j] / float64(k*k)
			}
			for q := range d {
				wantDX[(int(a)+i)*d+q] = dxs[i][q] + dys[i][q]
			}
		}
		wantDG += dgs
	}
	check("SegmentKernelMean", S.Value.Data, wantS)
	check("SegmentKernelMean ∂x", x.Grad.Data, wantDX)
	check("SegmentKernelMean ∂γ", g.Grad.Data, []float64{wantDG})
}
