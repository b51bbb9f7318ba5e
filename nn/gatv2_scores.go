package nn

import (
	"fmt"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// gatv2ScoresOp is the record of GATv2's attention scores for every arc
// and head at once (Brody et al. 2022):
//
//	e[p, h] = Σ_k a[k, h] · LeakyReLU(wl[src p, h·out+k] + wr[dst p, h·out+k]).
//
// Composed from generic ops this is, per head, two column slices, two row
// gathers of E rows, an add, a LeakyReLU and a product: about eight passes
// over E × out values and their records. Fused, it is one pass forward and
// one backward, and the E × heads·out pre-activations are recomputed in the
// backward pass instead of stored.
type gatv2ScoresOp[T autodiff.Float] struct {
	wl, wr, a  *autodiff.Var[T]
	e          *autodiff.Var[T]
	src, dst   []int32
	heads, out int
	slope      T
	at, gat    []T // a transposed (heads × out, each head's vector contiguous) and its gradient
}

// gatv2Scores records the scores (E × heads) of the arcs src[p] → dst[p]
// for the projections wl (sources) and wr (targets), both N × heads·out,
// and the attention vectors a (out × heads). src and dst must not change
// until Backward has run.
func gatv2Scores[T autodiff.Float](t *autodiff.Tape[T], wl, wr, a *autodiff.Var[T], src, dst []int32, heads, out int, slope float64) *autodiff.Var[T] {
	n, w := wl.Value.Rows, heads*out
	if wl.Value.Cols != w || wr.Value.Rows != n || wr.Value.Cols != w || a.Value.Rows != out || a.Value.Cols != heads || len(src) != len(dst) {
		panic(fmt.Sprintf("nn: gatv2Scores: projections %d×%d and %d×%d, attention %d×%d, %d and %d arc ends, for %d heads of %d",
			n, wl.Value.Cols, wr.Value.Rows, wr.Value.Cols, a.Value.Rows, a.Value.Cols, len(src), len(dst), heads, out))
	}
	e := t.Node(len(src), heads, wl, wr, a)
	// The record doubles as the forward pass's Ranger, so a pass allocates
	// nothing; Backward runs only when e requires a gradient.
	op := autodiff.OpOf[gatv2ScoresOp[T]](e)
	op.wl, op.wr, op.a, op.e, op.src, op.dst, op.heads, op.out, op.slope = wl, wr, a, e, src, dst, heads, out, T(slope)
	op.at = resize(op.at, w)
	for k := 0; k < out; k++ {
		for h := 0; h < heads; h++ {
			op.at[h*out+k] = a.Value.Data[k*heads+h]
		}
	}
	tensor.ParallelRange(len(src), 4*w, op)
	return e
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Range computes the scores of arcs [lo, hi).
func (op *gatv2ScoresOp[T]) Range(lo, hi int) {
	heads, out, w, slope := op.heads, op.out, op.heads*op.out, op.slope
	L, R, E := op.wl.Value.Data, op.wr.Value.Data, op.e.Value.Data
	for p := lo; p < hi; p++ {
		s, d := int(op.src[p])*w, int(op.dst[p])*w
		l, r, ev := L[s:s+w], R[d:d+w], E[p*heads:(p+1)*heads]
		for h := range ev {
			lh, rh, ah := l[h*out:(h+1)*out], r[h*out:(h+1)*out], op.at[h*out:(h+1)*out]
			rh, ah = rh[:len(lh)], ah[:len(lh)]
			var sum T
			for k, x := range lh {
				z := x + rh[k]
				sum += ah[k] * max(z, z*slope) // LeakyReLU for 0 < slope < 1, without a branch
			}
			ev[h] = sum
		}
	}
}

// Backward implements autodiff.Op. It runs serially: every arc adds into
// the rows of its two ends and into a, and one pass over E × heads·out is
// cheap next to the layer's projections.
func (op *gatv2ScoresOp[T]) Backward(e *autodiff.Var[T]) {
	heads, out, w, drop := op.heads, op.out, op.heads*op.out, 1-op.slope
	L, R, G := op.wl.Value.Data, op.wr.Value.Data, e.Grad.Data
	gl, gr, ga := op.wl.RequiresGrad(), op.wr.RequiresGrad(), op.a.RequiresGrad()
	var dL, dR []T
	if gl {
		dL = op.wl.Grad.Data
	}
	if gr {
		dR = op.wr.Grad.Data
	}
	op.gat = resize(op.gat, w)
	clear(op.gat)
	for p := range op.src {
		s, d := int(op.src[p])*w, int(op.dst[p])*w
		l, r, gv := L[s:s+w], R[d:d+w], G[p*heads:(p+1)*heads]
		for h, g := range gv {
			if g == 0 {
				continue
			}
			lo, hi := h*out, (h+1)*out
			lh, rh, ah, gah := l[lo:hi], r[lo:hi], op.at[lo:hi], op.gat[lo:hi]
			rh, ah, gah = rh[:len(lh)], ah[:len(lh)], gah[:len(lh)]
			for k, x := range lh {
				z := x + rh[k]
				neg := 0 // a conditional move, not a branch on the sign
				if z < 0 {
					neg = 1
				}
				f := 1 - drop*T(neg) // LeakyReLU′(z)
				dz := g * ah[k] * f
				gah[k] += g * z * f
				if gl {
					dL[s+lo+k] += dz
				}
				if gr {
					dR[d+lo+k] += dz
				}
			}
		}
	}
	if ga {
		for k := 0; k < out; k++ {
			for h := 0; h < heads; h++ {
				op.a.Grad.Data[k*heads+h] += op.gat[h*out+k]
			}
		}
	}
}
