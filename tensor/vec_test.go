package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVecKernels compares the Vec kernels (AVX2 on float32 where available)
// with their plain loops over lengths around the 8- and 16-element blocks,
// with zeros, signed zeros and NaNs among the inputs.
func TestVecKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	nan := float32(math.NaN())
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100} {
		a, b, x, d0 := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i], x[i], d0[i] = rng.Float32()*2-1, rng.Float32()*2-1, rng.Float32()*2-1, rng.Float32()
			switch i % 11 {
			case 3:
				x[i] = 0
			case 5:
				x[i] = float32(math.Copysign(0, -1))
			case 7:
				x[i] = nan
			}
		}
		type kcase struct {
			name      string
			got, want func(d []float32)
		}
		cases := []kcase{
			{"VecAdd", func(d []float32) { VecAdd(d, a, b) }, func(d []float32) {
				for i := range d {
					d[i] = a[i] + b[i]
				}
			}},
			{"VecMul", func(d []float32) { VecMul(d, a, x) }, func(d []float32) {
				for i := range d {
					d[i] = a[i] * x[i]
				}
			}},
			{"VecMulAdd", func(d []float32) { VecMulAdd(d, a, b) }, func(d []float32) {
				for i := range d {
					d[i] += a[i] * b[i]
				}
			}},
			{"VecReLU", func(d []float32) { VecReLU(d, x) }, func(d []float32) {
				for i, v := range x {
					d[i] = v
					if v <= 0 {
						d[i] = 0
					}
				}
			}},
			{"VecReLUGrad", func(d []float32) { VecReLUGrad(d, a, x) }, func(d []float32) {
				for i, v := range x {
					if v > 0 {
						d[i] += a[i]
					}
				}
			}},
			{"VecReLUGradScaled", func(d []float32) { VecReLUGradScaled(d, a, x, 2.5) }, func(d []float32) {
				for i, v := range x {
					p := a[i] * 2.5
					if !(v > 0) {
						p = 0
					}
					d[i] += p
				}
			}},
		}
		for _, c := range cases {
			got, want := append([]float32(nil), d0...), append([]float32(nil), d0...)
			c.got(got)
			c.want(want)
			for i := range got {
				g, w := got[i], want[i]
				if w != w {
					if g == g {
						t.Errorf("%s n=%d: element %d = %v, want NaN", c.name, n, i, g)
					}
					continue
				}
				if math.Abs(float64(g-w)) > 1e-6*(1+math.Abs(float64(w))) {
					t.Errorf("%s n=%d: element %d = %v, want %v", c.name, n, i, g, w)
				}
			}
		}
	}
	// float64 takes the plain loops.
	d := []float64{1, 2}
	VecMulAdd(d, []float64{2, 3}, []float64{4, 5})
	if d[0] != 9 || d[1] != 17 {
		t.Errorf("float64 VecMulAdd = %v, want [9 17]", d)
	}
}

func BenchmarkVec(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, y, z := randDense[float32](rng, 2708, 64), randDense[float32](rng, 2708, 64), NewDense[float32](2708, 64)
	for _, k := range []struct {
		name string
		f    func()
	}{
		{"Add", func() { VecAdd(z.Data, x.Data, y.Data) }},
		{"MulAdd", func() { VecMulAdd(z.Data, x.Data, y.Data) }},
		{"ReLU", func() { VecReLU(z.Data, x.Data) }},
		{"ReLUGrad", func() { VecReLUGrad(z.Data, y.Data, x.Data) }},
	} {
		b.Run(k.name+"_2708x64", func(b *testing.B) {
			for b.Loop() {
				k.f()
			}
		})
	}
}

// SumRowsWiden's AVX2 path gives the plain loop's bits: each sum takes its
// terms in row order.
func TestSumRowsWiden(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type f32 float32 // the plain loop: a named type takes no kernel
	for _, cols := range []int{1, 4, 8, 18, 36, 72} {
		for _, rows := range []int{0, 1, 2, 5, 33} {
			x := make([]float32, rows*cols)
			xr := make([]f32, rows*cols)
			for i := range x {
				x[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(8)-4)))
				xr[i] = f32(x[i])
			}
			acc, want := make([]float64, cols), make([]float64, cols)
			for c := range acc {
				acc[c] = rng.NormFloat64()
				want[c] = acc[c]
			}
			SumRowsWiden(acc, x)
			SumRowsWiden(want, xr)
			for c := range acc {
				if acc[c] != want[c] {
					t.Fatalf("cols %d rows %d: acc[%d] = %v, plain loop %v", cols, rows, c, acc[c], want[c])
				}
			}
		}
	}
}

// AddScaledRowsWiden's AVX2 path gives the plain loop's bits, for row
// widths around the 4-value blocks, classes repeated and in any order, and
// scales of every size and sign (zero included).
func TestAddScaledRowsWiden(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type f32 float32 // the plain loop: a named type takes no kernel
	const C = 7
	for _, d := range []int{1, 2, 3, 4, 5, 8, 17, 18, 33} {
		for _, m := range []int{0, 1, 3, 7, 12} {
			w, z := make([]float32, C*d), make([]float32, d)
			wr, zr := make([]f32, C*d), make([]f32, d)
			for i := range w {
				w[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(8)-4)))
				wr[i] = f32(w[i])
			}
			for i := range z {
				z[i] = float32(rng.NormFloat64())
				zr[i] = f32(z[i])
			}
			cls, ks := make([]int32, m), make([]float64, m)
			for q := range cls {
				cls[q] = int32(rng.IntN(C))
				ks[q] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(6)-3))
				if rng.IntN(5) == 0 {
					ks[q] = 0
				}
			}
			acc, pw := make([]float64, d), make([]float64, C*d)
			for i := range acc {
				acc[i] = rng.NormFloat64()
			}
			for i := range pw {
				pw[i] = rng.NormFloat64()
			}
			accR, pwR := append([]float64(nil), acc...), append([]float64(nil), pw...)
			AddScaledRowsWiden(acc, pw, w, z, cls, ks)
			AddScaledRowsWiden(accR, pwR, wr, zr, cls, ks)
			for i := range acc {
				if math.Float64bits(acc[i]) != math.Float64bits(accR[i]) {
					t.Fatalf("d %d m %d: acc[%d] = %v, plain loop %v", d, m, i, acc[i], accR[i])
				}
			}
			for i := range pw {
				if math.Float64bits(pw[i]) != math.Float64bits(pwR[i]) {
					t.Fatalf("d %d m %d: pw[%d] = %v, plain loop %v", d, m, i, pw[i], pwR[i])
				}
			}
		}
	}
}
