package optim

import (
	"testing"

	"github.com/prcaps/prcaps/autodiff"
)

// benchParams returns about 100k float32 parameters shaped like the node
// model on Cora (GCN 1433×64, linear 64×16, routing weights, biases).
func benchParams() []*autodiff.Var[float32] {
	shapes := [][2]int{{1433, 64}, {1, 64}, {64, 16}, {1, 16}, {4, 16 * 16}, {1, 4}}
	var ps []*autodiff.Var[float32]
	for i, s := range shapes {
		n := s[0] * s[1]
		p := newParamFrom[float32]("p", s[0], s[1], randVals(uint64(i), n, 0.1))
		for j := range p.Grad.Data {
			p.Grad.Data[j] = float32(j%13-6) * 1e-3
		}
		ps = append(ps, p)
	}
	return ps
}

func BenchmarkStep(b *testing.B) {
	for _, v := range []Variant{VariantAdam, VariantAdamW, VariantRiemannianAdam} {
		b.Run(v.String(), func(b *testing.B) {
			ps := benchParams()
			opt, err := build(v, Config{LR: 0.005, WeightDecay: 5e-4}, Group[float32]{Params: ps})
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for _, p := range ps {
				n += p.Value.Len()
			}
			b.SetBytes(int64(n) * 4)
			b.ReportAllocs()
			for b.Loop() {
				if err := opt.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkClipGradNorm(b *testing.B) {
	ps := benchParams()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ClipGradNorm(ps, 1e9); err != nil {
			b.Fatal(err)
		}
	}
}
