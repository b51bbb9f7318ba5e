package capsule

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
)

// refGraphRouting is the reference of graph-level routing (DESIGN §5): the
// parents (g, c) link to the real nodes of graph g (no virtual children),
// and the prediction of each link is computed per link with the weights of
// its parent's class, in float64 with the manifold reference functions.
func refGraphRouting[T autodiff.Float](g *GraphRouting[T], u [][]float64, beta float64, seg []int32) [][]float64 {
	r := g.Routing
	dims := r.Cfg.Dims
	tt, s, K, C := dims.T, dims.S, r.K, g.Classes
	val := func(p *autodiff.Var[T], i, j int) float64 { return float64(p.Value.Data[i*p.Value.Cols+j]) }
	G, N := len(seg)-1, int(seg[len(seg)-1])
	betaK := make([]float64, K)
	for k := range betaK {
		betaK[k] = beta
		if r.Cfg.Kind == ACR {
			betaK[k] = manifold.BetaFromRho(float64(r.Rho[k].Value.Data[0]))
		}
	}
	a := make([][]float64, N)
	for i := range a {
		a[i] = manifold.LogOVec(u[i], beta, dims)
	}
	l := &Links{Parents: G * C, Children: N, Ptr: []int32{0}}
	var xiE [][][]float64
	for gi := 0; gi < G; gi++ {
		for c := 0; c < C; c++ {
			for i := seg[gi]; i < seg[gi+1]; i++ {
				l.Child = append(l.Child, i)
				xs := make([][]float64, K)
				for k := 0; k < K; k++ {
					sph := make([]float64, tt)
					for o := 0; o < tt; o++ {
						for m := 0; m < tt; m++ {
							sph[o] += a[i][m] * val(g.Wsph[c][k], m, o)
						}
					}
					x := append(manifold.WrapVec(sph, math.Sqrt(-betaK[k])), make([]float64, s)...)
					for o := 0; o < s; o++ {
						for m := 0; m < s; m++ {
							x[tt+o] += a[i][tt+m] * val(g.Weuc[c][k], m, o)
						}
					}
					for o := range x {
						x[o] += val(g.B[c][k], 0, o)
					}
					xs[k] = x
				}
				xiE = append(xiE, xs)
			}
			l.Ptr = append(l.Ptr, int32(len(l.Child)))
		}
	}
	v, _ := refRoute(r, a, xiE, betaK, beta, l)
	return v
}

// graphTestSegs: graphs of 3, 1 (a single node) and 4 nodes.
var graphTestSeg = []int32{0, 3, 4, 8}

func newTestGraphRouting[T autodiff.Float](t testing.TB, cfg RoutingConfig, classes int, seed uint64) *GraphRouting[T] {
	t.Helper()
	g, err := NewGraphRouting[T]("g", cfg, classes, rand.New(rand.NewPCG(seed, 7)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 8))
	for _, p := range g.Params() {
		for i := range p.Value.Data {
			p.Value.Data[i] += T(0.3 * (2*rng.Float64() - 1))
		}
	}
	return g
}

func graphRoutingCases() []struct {
	name    string
	cfg     RoutingConfig
	classes int
} {
	small := smallRoutingConfig()
	pcr := small
	pcr.Kind = PCR
	detach := small
	detach.DetachB = true
	one := small
	parents := small
	parents.Coupling = CouplingOverParents
	return []struct {
		name    string
		cfg     RoutingConfig
		classes int
	}{
		{"acr_c2", small, 2},
		{"acr_c3", small, 3},
		{"pcr_c2", pcr, 2},
		{"detach_c2", detach, 2},
		{"acr_c1", one, 1},
		// The reference's children are the nodes themselves, so its
		// coupling over parents normalises over each node's class
		// capsules, which the virtual children must reproduce
		// (Links.Copies).
		// (With one class c ≡ 1 and the gradients of W^C and α_R, through
		// log(1 + 1e-9), are below finite differences' resolution.)
		{"parents_c3", parents, 3},
	}
}

func TestGraphRoutingMatchesReference(t *testing.T) {
	for _, tc := range graphRoutingCases() {
		t.Run(tc.name, func(t *testing.T) {
			beta := -1.3
			N := int(graphTestSeg[len(graphTestSeg)-1])
			u := randTangentPoints(rand.New(rand.NewPCG(3, 3)), N, beta, tc.cfg.Dims, 0.2, 4)
			g64 := newTestGraphRouting[float64](t, tc.cfg, tc.classes, 1)
			g32 := newTestGraphRouting[float32](t, tc.cfg, tc.classes, 1)
			p64, p32 := append(g64.Params(), g64.CurvatureParams()...), append(g32.Params(), g32.CurvatureParams()...)
			for n, p := range p32 {
				for i, v := range p64[n].Value.Data {
					p.Value.Data[i] = float32(v)
				}
			}
			want := refGraphRouting(g64, u, beta, graphTestSeg)
			l := ClassLinksInto(&Links{}, graphTestSeg, tc.classes)
			var tp64 autodiff.Tape[float64]
			var tp32 autodiff.Tape[float32]
			b64 := autodiff.NewVar(denseFromRows[float64]([][]float64{{beta}}), false)
			b32 := autodiff.NewVar(denseFromRows[float32]([][]float64{{beta}}), false)
			got64 := g64.Forward(&tp64, autodiff.NewVar(denseFromRows[float64](u), false), b64, l)
			got32 := g32.Forward(&tp32, autodiff.NewVar(denseFromRows[float32](u), false), b32, l)
			D := tc.cfg.Dims.Ambient()
			if len(want) != got64.Value.Rows || got64.Value.Rows != 3*tc.classes {
				t.Fatalf("%d parents, reference %d", got64.Value.Rows, len(want))
			}
			for j, w := range want {
				for c, x := range w {
					if g := got64.Value.Data[j*D+c]; math.Abs(g-x) > 1e-10*(1+math.Abs(x)) {
						t.Fatalf("float64 v[%d][%d] = %v, reference %v", j, c, g, x)
					}
					if g := float64(got32.Value.Data[j*D+c]); math.Abs(g-x) > 2e-4*(1+math.Abs(x)) {
						t.Fatalf("float32 v[%d][%d] = %v, reference %v", j, c, g, x)
					}
				}
			}
		})
	}
}

func TestGraphRoutingGradients(t *testing.T) {
	for _, tc := range graphRoutingCases() {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cfg.DetachB {
				t.Skip("DetachB gradients differ from finite differences by design")
			}
			beta := -1.3
			N := int(graphTestSeg[len(graphTestSeg)-1])
			u := randTangentPoints(rand.New(rand.NewPCG(4, 4)), N, beta, tc.cfg.Dims, 0.3, 1.2)
			g := newTestGraphRouting[float64](t, tc.cfg, tc.classes, 3)
			uv := autodiff.NewVar(denseFromRows[float64](u), true)
			bv := autodiff.NewVar(denseFromRows[float64]([][]float64{{beta}}), true)
			l := ClassLinksInto(&Links{}, graphTestSeg, tc.classes)
			inputs := append(g.Params(), g.CurvatureParams()...)
			inputs = append(inputs, uv, bv)
			rel, err := autodiff.GradCheck(func(tp *autodiff.Tape[float64]) (*autodiff.Var[float64], error) {
				return g.Forward(tp, uv, bv, l), nil
			}, inputs, 1e-5)
			if err != nil {
				t.Fatal(err)
			}
			if rel > 1e-6 {
				t.Fatalf("relative gradient error %.3g > 1e-6", rel)
			}
		})
	}
}

// Links rebuilt in place (a reused mini-batch buffer) invalidate the cached
// index: the second batch's result matches a fresh Links.
func TestGraphRoutingLinksRebuiltInPlace(t *testing.T) {
	cfg := smallRoutingConfig()
	g := newTestGraphRouting[float64](t, cfg, 2, 5)
	beta := autodiff.NewVar(denseFromRows[float64]([][]float64{{-1}}), false)
	reused := &Links{}
	var tp autodiff.Tape[float64]
	for _, seg := range [][]int32{{0, 3, 4, 8}, {0, 2, 7}, {0, 1}} {
		N := int(seg[len(seg)-1])
		u := autodiff.NewVar(denseFromRows[float64](randTangentPoints(rand.New(rand.NewPCG(9, 9)), N, -1, cfg.Dims, 0.2, 2)), false)
		tp.Reset()
		got := g.Forward(&tp, u, beta, ClassLinksInto(reused, seg, 2))
		gotCopy := append([]float64(nil), got.Value.Data...)
		tp.Reset()
		want := g.Forward(&tp, u, beta, ClassLinksInto(&Links{}, seg, 2))
		for i, w := range want.Value.Data {
			if gotCopy[i] != w {
				t.Fatalf("seg %v: reused links give %v at %d, fresh %v", seg, gotCopy[i], i, w)
			}
		}
	}
}

func TestGraphRoutingAllocatesNothing(t *testing.T) {
	cfg := DefaultRoutingConfig()
	g := newTestGraphRouting[float32](t, cfg, 2, 1)
	l := ClassLinksInto(&Links{}, graphTestSeg, 2)
	N := int(graphTestSeg[len(graphTestSeg)-1])
	u := autodiff.NewVar(denseFromRows[float32](randTangentPoints(rand.New(rand.NewPCG(2, 2)), N, -1, cfg.Dims, 0.2, 2)), true)
	beta := autodiff.NewVar(denseFromRows[float32]([][]float64{{-1}}), true)
	var tp autodiff.Tape[float32]
	step := func() {
		tp.Reset()
		v := g.Forward(&tp, u, beta, l)
		loss := autodiff.Sum(&tp, v)
		if err := tp.Backward(loss); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3; i++ {
		step()
	}
	if n := testing.AllocsPerRun(10, step); n != 0 && !routingRaceEnabled() {
		t.Fatalf("steady-state forward+backward allocates %v times", n)
	}
}

func TestNewGraphRoutingValidation(t *testing.T) {
	for _, c := range []int{0, MaxGraphClasses + 1} {
		if _, err := NewGraphRouting[float32]("g", DefaultRoutingConfig(), c, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Fatalf("%d classes accepted", c)
		}
	}
}

// Every prediction weight, of every class and perspective, follows
// cfg.Init: I + U(±0.05) or U(±1/√fan_in); the biases start at 0.
func TestGraphRoutingPredictionInit(t *testing.T) {
	for _, init := range []PredictionInit{InitNearIdentity, InitTorch} {
		cfg := DefaultRoutingConfig()
		cfg.Dims, cfg.Init = manifold.Dims{S: 6, T: 3}, init
		g, err := NewGraphRouting[float64]("g", cfg, 3, rand.New(rand.NewPCG(5, 5)))
		if err != nil {
			t.Fatal(err)
		}
		for c := range g.Wsph {
			for k := range g.Wsph[c] {
				for _, w := range []*autodiff.Var[float64]{g.Wsph[c][k], g.Weuc[c][k]} {
					checkPredictionInit(t, w, init)
				}
				for _, b := range g.B[c][k].Value.Data {
					if b != 0 {
						t.Fatalf("%v: %s has %v", init, g.B[c][k].Name, b)
					}
				}
			}
		}
	}
}

func checkPredictionInit(t *testing.T, w *autodiff.Var[float64], init PredictionInit) {
	t.Helper()
	n := w.Value.Rows
	bound := 1 / math.Sqrt(float64(n))
	var offDiag float64 // largest |w_ij| off the diagonal
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := w.Value.Data[i*n+j]
			want := 0.0
			if i == j && init == InitNearIdentity {
				want = 1
			}
			lim := 0.05
			if init == InitTorch {
				lim = bound
			}
			if math.Abs(v-want) > lim {
				t.Fatalf("%v: %s[%d,%d] = %v, want within %v of %v", init, w.Name, i, j, v, lim, want)
			}
			if i != j {
				offDiag = max(offDiag, math.Abs(v))
			}
		}
	}
	// The torch draws fill their range; near-identity noise stays small.
	if init == InitTorch && offDiag < 0.5*bound || init == InitNearIdentity && offDiag > 0.05 {
		t.Fatalf("%v: %s: largest off-diagonal |w| = %v (bound %v)", init, w.Name, offDiag, bound)
	}
}

// With Links.Copies the links group by capsule: node i's group holds the
// links of its C class parents, in class order, and no other.
func TestClassLinksCapsuleGroups(t *testing.T) {
	const C = 3
	l := ClassLinksInto(&Links{}, graphTestSeg, C)
	x, err := newLinkIndex(l)
	if err != nil {
		t.Fatal(err)
	}
	N := int(graphTestSeg[len(graphTestSeg)-1])
	capPtr, capLink, capInv := x.capsules()
	if len(capPtr) != N+1 {
		t.Fatalf("%d capsule groups, want %d", len(capPtr)-1, N)
	}
	for i := 0; i < N; i++ {
		lo, hi := capPtr[i], capPtr[i+1]
		if hi-lo != C {
			t.Fatalf("node %d: %d links, want %d", i, hi-lo, C)
		}
		for c := 0; c < C; c++ {
			e := capLink[lo+int32(c)]
			if l.Child[e] != int32(c*N+i) || capInv[e] != lo+int32(c) {
				t.Errorf("node %d, class %d: link %d (child %d, inv %d)", i, c, e, l.Child[e], capInv[e])
			}
		}
	}
	// The same Links rebuilt without copies: the groups are the children.
	l.Copies = 0
	l.Changed()
	if err := x.build(l); err != nil {
		t.Fatal(err)
	}
	capPtr, capLink, _ = x.capsules()
	if len(capPtr) != C*N+1 || &capLink[0] != &x.childLink[0] {
		t.Errorf("without copies: %d groups, aliased %v", len(capPtr)-1, &capLink[0] == &x.childLink[0])
	}
	// And with copies again: the capsule groups get storage of their own
	// and leave the child arrays intact.
	child := append([]int32(nil), x.childLink...)
	l.Copies = C
	l.Changed()
	if err := x.build(l); err != nil {
		t.Fatal(err)
	}
	capPtr, _, _ = x.capsules()
	if len(capPtr) != N+1 || !slices.Equal(x.childLink, child) {
		t.Errorf("copies again: %d groups, child links %v, want %v", len(capPtr)-1, x.childLink, child)
	}
	// Links that outgrow childPtr but not childLink: the capsule groups
	// must not reuse childLink, which childPtr's reallocation leaves in use.
	small := &Links{Parents: 1, Children: 2, Ptr: []int32{0, 2}, Child: []int32{1, 0}}
	y, err := newLinkIndex(small)
	if err != nil {
		t.Fatal(err)
	}
	y.capsules()
	small.Children, small.Copies, small.Child[0], small.Child[1] = 8, 2, 3, 4 // capsules 3 and 0
	small.Changed()
	if err := y.build(small); err != nil {
		t.Fatal(err)
	}
	_, capLink, _ = y.capsules()
	if !slices.Equal(y.childLink, []int32{0, 1}) || !slices.Equal(capLink, []int32{1, 0}) {
		t.Errorf("grown links: child links %v, capsule links %v; want [0 1] and [1 0]", y.childLink, capLink)
	}
}
