package tensor

// Row kernels of batch normalisation (autodiff.BatchNorm) over an R×C
// row-major block, C = len of the per-column slices. Each gives the bits
// of its plain Go loop, the reference the tests compare with: the vector
// versions keep every column's sums in row order and do the element
// operations one rounding at a time, as the loops do (Go fuses no
// multiply-add on amd64).

// SumSqDevRowsWiden adds (float64(x[r·C+c]) − mu[c])² to acc[c] for every
// row r in order: a batch's squared deviations per column.
func SumSqDevRowsWiden[T Float](acc, mu []float64, x []T) {
	cols := len(acc)
	if cols == 0 {
		return
	}
	rows := len(x) / cols
	mu = mu[:cols]
	if x32, ok := any(x).([]float32); ok && haveAVX2FMA && cols%4 == 0 && rows > 0 {
		sumSqDevRowsWiden32(&acc[0], &x32[0], &mu[0], rows, cols)
		return
	}
	for r := 0; r < rows; r++ {
		for c, v := range x[r*cols : (r+1)*cols] {
			d := float64(v) - mu[c]
			acc[c] += d * d
		}
	}
}

// SumProdRowsWiden adds float64(a[r·C+c])·float64(b[r·C+c]) to acc[c] for
// every row r in order.
func SumProdRowsWiden[T Float](acc []float64, a, b []T) {
	cols := len(acc)
	if cols == 0 {
		return
	}
	rows := len(a) / cols
	b = b[:rows*cols]
	if a32, ok := any(a).([]float32); ok && haveAVX2FMA && cols%4 == 0 && rows > 0 {
		sumProdRowsWiden32(&acc[0], &a32[0], &any(b).([]float32)[0], rows, cols)
		return
	}
	for r := 0; r < rows; r++ {
		bb := b[r*cols : (r+1)*cols]
		for c, v := range a[r*cols : (r+1)*cols] {
			acc[c] += float64(v) * float64(bb[c])
		}
	}
}

// NormalizeRows sets, per element, h = (x − mu[c])·rstd[c], xhat = h and
// y = h·gamma[c] + beta[c]: batch norm's forward pass with the per-column
// statistics and affine weights given (all of length C).
func NormalizeRows[T Float](y, xhat, x, mu, rstd, gamma, beta []T) {
	cols := len(mu)
	if cols == 0 {
		return
	}
	rows := len(x) / cols
	n := rows * cols
	y, xhat, rstd, gamma, beta = y[:n], xhat[:n], rstd[:cols], gamma[:cols], beta[:cols]
	if x32, ok := any(x).([]float32); ok && haveAVX2FMA && cols%8 == 0 && rows > 0 {
		f := func(s []T) *float32 { return &any(s).([]float32)[0] }
		normalizeRows32(f(y), f(xhat), &x32[0], f(mu), f(rstd), f(gamma), f(beta), rows, cols)
		return
	}
	for i := 0; i < rows; i++ {
		xr, xh, yr := x[i*cols:(i+1)*cols], xhat[i*cols:(i+1)*cols], y[i*cols:(i+1)*cols]
		for j, v := range xr {
			h := (v - mu[j]) * rstd[j]
			xh[j] = h
			yr[j] = h*gamma[j] + beta[j]
		}
	}
}

// NormalizeGradRows adds c1[c]·(g − c2[c] − xhat·c3[c]) to dx per element:
// batch norm's input gradient from the output gradient g and the
// normalised input xhat, with per-column coefficients of length C.
func NormalizeGradRows[T Float](dx, g, xhat, c1, c2, c3 []T) {
	cols := len(c1)
	if cols == 0 {
		return
	}
	rows := len(g) / cols
	n := rows * cols
	dx, xhat, c2, c3 = dx[:n], xhat[:n], c2[:cols], c3[:cols]
	if g32, ok := any(g).([]float32); ok && haveAVX2FMA && cols%8 == 0 && rows > 0 {
		f := func(s []T) *float32 { return &any(s).([]float32)[0] }
		normalizeGradRows32(f(dx), &g32[0], f(xhat), f(c1), f(c2), f(c3), rows, cols)
		return
	}
	for i := 0; i < rows; i++ {
		gr, xh, d := g[i*cols:(i+1)*cols], xhat[i*cols:(i+1)*cols], dx[i*cols:(i+1)*cols]
		for j, v := range gr {
			d[j] += c1[j] * (v - c2[j] - xh[j]*c3[j])
		}
	}
}
