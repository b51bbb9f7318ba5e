package tensor

import "fmt"

// Serial elementwise kernels over one slice (typically a row): the inner
// loops of autodiff's elementwise ops, which do their own parallel
// splitting. float32 slices run on AVX2 where available (Go does not
// vectorise loops, and these passes over every activation are a good part
// of a small model's step); other types run the plain loop. Slices are
// truncated to len(dst); they must be at least that long.

// VecAdd sets dst = a + b; dst may alias a or b.
func VecAdd[T Float](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	if d, ok := any(dst).([]float32); ok && haveAVX2FMA {
		n := len(d) &^ 7
		if n > 0 {
			vecAdd32(&d[0], &any(a).([]float32)[0], &any(b).([]float32)[0], n)
		}
		dst, a, b = dst[n:], a[n:], b[n:]
	}
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

// VecMul sets dst = a ⊙ b; dst may alias a or b.
func VecMul[T Float](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	if d, ok := any(dst).([]float32); ok && haveAVX2FMA {
		n := len(d) &^ 7
		if n > 0 {
			vecMul32(&d[0], &any(a).([]float32)[0], &any(b).([]float32)[0], n)
		}
		dst, a, b = dst[n:], a[n:], b[n:]
	}
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}

// VecMulAdd sets dst += a ⊙ b (fused on AVX2); dst must not alias a or b.
func VecMulAdd[T Float](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	if d, ok := any(dst).([]float32); ok && haveAVX2FMA {
		n := len(d) &^ 7
		if n > 0 {
			vecMulAdd32(&d[0], &any(a).([]float32)[0], &any(b).([]float32)[0], n)
		}
		dst, a, b = dst[n:], a[n:], b[n:]
	}
	for i := range dst {
		dst[i] += a[i] * b[i]
	}
}

// VecReLU sets dst = max(x, 0), keeping NaNs; dst may alias x.
func VecReLU[T Float](dst, x []T) {
	x = x[:len(dst)]
	if d, ok := any(dst).([]float32); ok && haveAVX2FMA {
		n := len(d) &^ 7
		if n > 0 {
			vecReLU32(&d[0], &any(x).([]float32)[0], n)
		}
		dst, x = dst[n:], x[n:]
	}
	for i, v := range x {
		if v > 0 || v != v {
			dst[i] = v
		} else {
			dst[i] = 0
		}
	}
}

// VecReLUGrad adds g to dst where x > 0 (the ReLU backward pass, with
// subgradient 0 at 0 as PyTorch); dst must not alias g or x.
func VecReLUGrad[T Float](dst, g, x []T) {
	g, x = g[:len(dst)], x[:len(dst)]
	if d, ok := any(dst).([]float32); ok && haveAVX2FMA {
		n := len(d) &^ 7
		if n > 0 {
			vecReLUGradScaled32(&d[0], &any(g).([]float32)[0], &any(x).([]float32)[0], 1, n) // g·1 is g
		}
		dst, g, x = dst[n:], g[n:], x[n:]
	}
	for i, v := range x {
		if v > 0 {
			dst[i] += g[i]
		}
	}
}

// VecReLUGradScaled adds g·s to dst where y > 0 and +0 elsewhere, the
// product rounded to T first: the backward pass of an inverted dropout
// after a ReLU (s = 1/(1−p)), read from the output y. dst must not alias g
// or y.
func VecReLUGradScaled[T Float](dst, g, y []T, s T) {
	g, y = g[:len(dst)], y[:len(dst)]
	if d, ok := any(dst).([]float32); ok && haveAVX2FMA {
		n := len(d) &^ 7
		if n > 0 {
			vecReLUGradScaled32(&d[0], &any(g).([]float32)[0], &any(y).([]float32)[0], any(s).(float32), n)
		}
		dst, g, y = dst[n:], g[n:], y[n:]
	}
	for i, v := range y {
		p := g[i] * s
		if !(v > 0) {
			p = 0
		}
		dst[i] += p
	}
}

// SumRowsWiden adds every row of x (len(x)/len(acc) rows of len(acc)
// values) to acc, in float64, one row after the other: acc[c] +=
// float64(x[r·len(acc)+c]) for r in order, the bits of the plain loop. Bias
// gradients sum a block of rows this way, in float64.
func SumRowsWiden[T Float](acc []float64, x []T) {
	cols := len(acc)
	if cols == 0 {
		return
	}
	rows := len(x) / cols
	if x32, ok := any(x).([]float32); ok && haveAVX2FMA && cols%4 == 0 && rows > 0 {
		sumRowsWiden32(&acc[0], &x32[0], rows, cols)
		return
	}
	for r := 0; r < rows; r++ {
		for c, v := range x[r*cols : (r+1)*cols] {
			acc[c] += float64(v)
		}
	}
}

// AddScaledRowsWiden adds, for each pair q in order, with c = cls[q] and
// k = ks[q], k·w_c to acc and k·z to pw_c, in float64:
//
//	acc[j] += k·float64(w[c·d+j]),   pw[c·d+j] += k·float64(z[j])   (j < d),
//
// d = len(acc) = len(z), w and pw holding rows of d values. Each product
// and each sum rounds as that plain loop's (the bits are the loop's), so a
// caller may replace the loop by it. The PRCC alignment's backward pass
// adds a z row's class terms this way: acc gathers ∂z's row, pw the
// classes' ∂w partial sums.
func AddScaledRowsWiden[T Float](acc, pw []float64, w, z []T, cls []int32, ks []float64) {
	d := len(acc)
	if len(z) != d || len(ks) != len(cls) {
		panic(fmt.Sprintf("tensor: AddScaledRowsWiden: acc has %d values, z %d; %d classes, %d scales", d, len(z), len(cls), len(ks)))
	}
	for _, c := range cls {
		if c < 0 || (int(c)+1)*d > len(w) || (int(c)+1)*d > len(pw) {
			panic(fmt.Sprintf("tensor: AddScaledRowsWiden: class %d out of range of %d and %d values in rows of %d", c, len(w), len(pw), d))
		}
	}
	if w32, ok := any(w).([]float32); ok && haveAVX2FMA && d > 0 && len(cls) > 0 {
		addScaledRowsWiden32(&acc[0], &pw[0], &w32[0], &any(z).([]float32)[0], &cls[0], &ks[0], len(cls), d)
		return
	}
	for q, c := range cls {
		k := ks[q]
		wc, pc := w[int(c)*d:(int(c)+1)*d], pw[int(c)*d:(int(c)+1)*d]
		for j := range acc {
			acc[j] += k * float64(wc[j])
			pc[j] += k * float64(z[j])
		}
	}
}
