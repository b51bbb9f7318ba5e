package nn

import (
	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// Propagate returns the fixed feature propagation of SGC and SSGC, computed
// once before training (no parameters, no gradient): with S the operator a
// (GCN's D^−½(A+I)D^−½ for both),
//
//	SGC  (average false): S^k X                               (Wu et al. 2019)
//	SSGC (average true):  α X + (1−α)/k · Σ_{i=1..k} S^i X   (Zhu & Koniusz 2021)
//
// x is the dense input (nodes × features); k ≥ 1.
func Propagate[T autodiff.Float](a *tensor.CSR[T], x *tensor.Dense[T], k int, alpha float64, average bool) *tensor.Dense[T] {
	var p Propagator[T]
	return p.Into(tensor.NewDense[T](x.Rows, x.Cols), a, x, k, alpha, average)
}

// Propagator is Propagate with its working memory kept between calls (the
// graph models propagate each batch afresh). The zero value is ready to use.
type Propagator[T autodiff.Float] struct {
	cur, next tensor.Dense[T]
}

// Into sets dst to Propagate(a, x, k, alpha, average) and returns it; dst
// must not alias x.
func (p *Propagator[T]) Into(dst *tensor.Dense[T], a *tensor.CSR[T], x *tensor.Dense[T], k int, alpha float64, average bool) *tensor.Dense[T] {
	cur, next := &p.cur, &p.next
	cur.CopyFrom(x)
	next.Reshape(x.Rows, x.Cols)
	var sum *tensor.Dense[T]
	if average {
		sum = dst
		sum.CopyFrom(x)
		for i := range sum.Data {
			sum.Data[i] *= T(alpha)
		}
	}
	w := T((1 - alpha) / float64(k))
	for i := 0; i < k; i++ {
		tensor.SpMM(next, a, cur, false)
		cur, next = next, cur
		if average {
			for j, v := range cur.Data {
				sum.Data[j] += w * v
			}
		}
	}
	if average {
		return sum
	}
	dst.CopyFrom(cur)
	return dst
}
