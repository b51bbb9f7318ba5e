package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prcaps/prcaps/tensor"
)

// ewtLabels returns valid labels y_i = (3i+1) mod classes.
func ewtLabels(n, classes int) Labels {
	y := make([]int32, n)
	for i := range y {
		y[i] = int32((3*i + 1) % classes)
	}
	l, err := NewLabels(y, classes)
	if err != nil {
		panic(err)
	}
	return l
}

func ewtLossCases[T Float]() []ewtCase[T] {
	ce := func(labels Labels, rows []int32) func(tp *Tape[T], in []*Var[T]) *Var[T] {
		return func(tp *Tape[T], in []*Var[T]) *Var[T] { return SoftmaxCrossEntropy(tp, in[0], labels, rows) }
	}
	return []ewtCase[T]{
		{name: "all", shapes: [][2]int{{6, 4}}, gen: ewtUniform(-3, 3), build: ce(ewtLabels(6, 4), nil)},
		{name: "masked", shapes: [][2]int{{6, 4}}, gen: ewtUniform(-3, 3), build: ce(ewtLabels(6, 4), []int32{5, 0, 2})},
		{name: "duplicateRows", shapes: [][2]int{{4, 3}}, gen: ewtUniform(-3, 3), build: ce(ewtLabels(4, 3), []int32{1, 1, 3})},
		{name: "oneClass", shapes: [][2]int{{3, 1}}, build: ce(ewtLabels(3, 1), nil)},
		{name: "oneRow", shapes: [][2]int{{1, 5}}, gen: ewtUniform(-3, 3), build: ce(ewtLabels(1, 5), nil)},
		{name: "large", shapes: [][2]int{{4, 3}}, gen: ewtUniform(50, 60), build: ce(ewtLabels(4, 3), nil)},
		{name: "Softmax", shapes: [][2]int{{4, 5}}, gen: ewtUniform(-3, 3),
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return Softmax(tp, in[0]) }},
		{name: "LogSoftmax", shapes: [][2]int{{4, 5}}, gen: ewtUniform(-3, 3),
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return LogSoftmax(tp, in[0]) }},
		{name: "LogSoftmax/1col", shapes: [][2]int{{3, 1}},
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] { return LogSoftmax(tp, in[0]) }},
		{name: "afterLayerNorm", shapes: [][2]int{{5, 4}, {1, 4}}, gen: ewtUniform(-2, 2),
			build: func(tp *Tape[T], in []*Var[T]) *Var[T] {
				h := LayerNorm(tp, in[0], in[1], nil, LayerNormEps)
				return SoftmaxCrossEntropy(tp, h, ewtLabels(5, 4), []int32{0, 1, 4})
			}},
	}
}

func TestSoftmaxCrossEntropyGradients(t *testing.T) {
	ewtRunBoth(t, ewtLossCases[float64], ewtLossCases[float32])
}

// ewtRefCE is −log softmax by the textbook formula with an explicit shift.
func ewtRefCE(x [][]float64, y []int32, rows []int) float64 {
	var s float64
	for _, r := range rows {
		m := math.Inf(-1)
		for _, v := range x[r] {
			m = math.Max(m, v)
		}
		var z float64
		for _, v := range x[r] {
			z += math.Exp(v - m)
		}
		s += -(x[r][y[r]] - m - math.Log(z))
	}
	return s / float64(len(rows))
}

func TestSoftmaxCrossEntropyForward(t *testing.T) {
	x := [][]float64{{1, 2, 3}, {0, 0, 0}, {-1, 5, 0.5}, {2, 2, -2}}
	y := []int32{2, 0, 0, 1}
	labels, err := NewLabels(y, 3)
	if err != nil {
		t.Fatal(err)
	}
	v := NewVar(tensor.FromRows(x), true)
	var tp Tape[float64]
	for _, tc := range []struct {
		rows []int32
		ref  []int
	}{
		{nil, []int{0, 1, 2, 3}},
		{[]int32{2}, []int{2}},
		{[]int32{3, 1, 3}, []int{3, 1, 3}},
	} {
		got := SoftmaxCrossEntropy(&tp, v, labels, tc.rows).Value.Data[0]
		if want := ewtRefCE(x, y, tc.ref); math.Abs(got-want) > 1e-14 {
			t.Errorf("rows %v: loss %.17g, want %.17g", tc.rows, got, want)
		}
	}
	// log 3 for uniform logits.
	if got := SoftmaxCrossEntropy(&tp, v, labels, []int32{1}).Value.Data[0]; math.Abs(got-math.Log(3)) > 1e-15 {
		t.Errorf("uniform row loss %g, want log 3", got)
	}
}

// TestSoftmaxCrossEntropyMasking: unselected rows get exactly zero gradient,
// and an empty selection gives loss 0 with no gradient at all.
func TestSoftmaxCrossEntropyMasking(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	x := ewtVar[float32](rng, "x", 5, 3, nil)
	labels := ewtLabels(5, 3)
	var tp Tape[float32]
	loss := SoftmaxCrossEntropy(&tp, x, labels, []int32{1, 3})
	if err := tp.Backward(loss); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		var rowSum float64
		for j := 0; j < 3; j++ {
			g := x.Grad.At(i, j)
			rowSum += float64(g)
			if (i == 1 || i == 3) != (g != 0) {
				t.Errorf("grad (%d,%d) = %g", i, j, g)
			}
		}
		// softmax − onehot sums to 0 on every row.
		if math.Abs(rowSum) > 1e-7 {
			t.Errorf("row %d gradient sums to %g, want 0", i, rowSum)
		}
	}
	x.ZeroGrad()
	tp.Reset()
	empty := SoftmaxCrossEntropy(&tp, x, labels, []int32{})
	if empty.Value.Data[0] != 0 {
		t.Errorf("loss over no rows = %g, want 0", empty.Value.Data[0])
	}
	if err := tp.Backward(empty); err != nil {
		t.Fatal(err)
	}
	for _, g := range x.Grad.Data {
		if g != 0 {
			t.Fatalf("loss over no rows gave gradient %v", x.Grad.Data)
		}
	}
	var t0 Tape[float32]
	z := SoftmaxCrossEntropy(&t0, NewVar(tensor.NewDense[float32](0, 3), true), Labels{classes: 3}, nil)
	if z.Value.Data[0] != 0 {
		t.Errorf("loss of 0×3 logits = %g, want 0", z.Value.Data[0])
	}
}

// TestSoftmaxCrossEntropyExtremeLogits: logits near the float32 limit, and
// far apart, stay finite in value and gradient.
func TestSoftmaxCrossEntropyExtremeLogits(t *testing.T) {
	rows := [][]float32{
		{3e38, -3e38, 0},     // confident and right
		{1e30, 1e30, 1e30},   // huge but equal: log 3
		{-1e30, 1e30, -1e30}, // confident and wrong: loss 2e30
		{80, 90, 100},        // exp would overflow float32 unshifted
	}
	labels, err := NewLabels([]int32{0, 2, 0, 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	x := NewVar(tensor.FromRows(rows), true)
	for k, want := range []float64{0, math.Log(3), 2e30, -math.Log(1 / (1 + math.Exp(-10) + math.Exp(-20)))} {
		var tp Tape[float32]
		loss := SoftmaxCrossEntropy(&tp, x, labels, []int32{int32(k)})
		got := float64(loss.Value.Data[0])
		if math.IsNaN(got) || math.IsInf(got, 0) || math.Abs(got-want) > 1e-6*math.Max(1, want) {
			t.Errorf("row %d: loss %g, want %g", k, got, want)
		}
		x.ZeroGrad()
		if err := tp.Backward(loss); err != nil {
			t.Fatal(err)
		}
		for _, g := range x.Grad.Data {
			if math.IsNaN(float64(g)) || math.IsInf(float64(g), 0) || math.Abs(float64(g)) > 1 {
				t.Fatalf("row %d: gradient %v", k, x.Grad.Data)
			}
		}
	}
}

func TestLabelsValidation(t *testing.T) {
	for _, tc := range []struct {
		y       []int32
		classes int
		ok      bool
	}{
		{[]int32{0, 1, 2}, 3, true},
		{[]int32{}, 3, true},
		{[]int32{0, 3}, 3, false},
		{[]int32{-1}, 3, false},
		{[]int32{0}, 0, false},
	} {
		l, err := NewLabels(tc.y, tc.classes)
		if (err == nil) != tc.ok {
			t.Errorf("NewLabels(%v, %d) error %v, want ok = %v", tc.y, tc.classes, err, tc.ok)
		}
		if err != nil && l.Len() != 0 {
			t.Errorf("rejected labels kept %d entries", l.Len())
		}
	}
	// The copy protects the validated labels from later edits by the caller.
	y := []int32{0, 1}
	l, _ := NewLabels(y, 2)
	y[0] = 7
	if l.At(0) != 0 || l.Classes() != 2 || l.Len() != 2 {
		t.Error("Labels alias the caller's slice")
	}
	// Set reuses storage: no allocation once warm.
	if a := testing.AllocsPerRun(10, func() { _ = l.Set([]int32{1, 0}, 2) }); a != 0 {
		t.Errorf("Labels.Set allocates %v times", a)
	}
}

func TestSoftmaxCrossEntropyPanics(t *testing.T) {
	x := NewVar(tensor.NewDense[float64](3, 2), true)
	for name, f := range map[string]func(){
		"classes":  func() { var tp Tape[float64]; SoftmaxCrossEntropy(&tp, x, ewtLabels(3, 3), nil) },
		"rows":     func() { var tp Tape[float64]; SoftmaxCrossEntropy(&tp, x, ewtLabels(4, 2), nil) },
		"rowIndex": func() { var tp Tape[float64]; SoftmaxCrossEntropy(&tp, x, ewtLabels(3, 2), []int32{3}) },
		"accuracy": func() { Accuracy(&x.Value, ewtLabels(3, 2), []int32{-1}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s mismatch did not panic", name)
				}
			}()
			f()
		}()
	}
}

func TestArgmaxAccuracy(t *testing.T) {
	m := tensor.FromRows([][]float64{{1, 3, 3}, {-1, -2, -0.5}, {0, math.NaN(), 5}, {2, 1, 0}})
	got := Argmax(m, nil)
	for i, want := range []int32{1, 2, 1, 0} {
		if got[i] != want {
			t.Errorf("Argmax row %d = %d, want %d", i, got[i], want)
		}
	}
	if a := testing.AllocsPerRun(10, func() { got = Argmax(m, got) }); a != 0 {
		t.Errorf("Argmax with a large enough dst allocates %v times", a)
	}
	if e := Argmax(tensor.NewDense[float64](2, 0), nil); e[0] != -1 || e[1] != -1 {
		t.Errorf("Argmax of empty rows = %v, want −1", e)
	}
	labels, _ := NewLabels([]int32{1, 2, 0, 1}, 3)
	if acc := Accuracy(m, labels, nil); acc != 0.5 {
		t.Errorf("Accuracy = %g, want 0.5", acc)
	}
	if acc := Accuracy(m, labels, []int32{0, 1, 1}); acc != 1 {
		t.Errorf("masked Accuracy = %g, want 1", acc)
	}
	if acc := Accuracy(m, labels, []int32{}); acc != 0 {
		t.Errorf("Accuracy over no rows = %g, want 0", acc)
	}
}

// TestSoftmaxCrossEntropyParallel covers the split forward and backward on
// many rows, with and without duplicates, against a serial reference.
func TestSoftmaxCrossEntropyParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const R, C = 2000, 7
	x := ewtVar[float64](rng, "x", R, C, ewtUniform(-4, 4))
	labels := ewtLabels(R, C)
	rows := make([]int32, 0, R)
	for i := 0; i < R; i += 2 {
		rows = append(rows, int32(i))
	}
	dup := append(append([]int32{}, rows...), rows[:10]...)
	for _, sel := range [][]int32{nil, rows, dup} {
		x.ZeroGrad()
		var tp Tape[float64]
		loss := SoftmaxCrossEntropy(&tp, x, labels, sel)
		if err := tp.Backward(loss); err != nil {
			t.Fatal(err)
		}
		idx := sel
		if idx == nil {
			idx = make([]int32, R)
			for i := range idx {
				idx[i] = int32(i)
			}
		}
		want := tensor.NewDense[float64](R, C)
		var lsum float64
		for _, r := range idx {
			xr := x.Value.Row(int(r))
			m := math.Inf(-1)
			for _, v := range xr {
				m = math.Max(m, v)
			}
			var z float64
			for _, v := range xr {
				z += math.Exp(v - m)
			}
			lsum += m + math.Log(z) - xr[labels.At(int(r))]
			for j, v := range xr {
				want.Data[int(r)*C+j] += math.Exp(v-m) / z / float64(len(idx))
			}
			want.Data[int(r)*C+int(labels.At(int(r)))] -= 1 / float64(len(idx))
		}
		if got := loss.Value.Data[0]; math.Abs(got-lsum/float64(len(idx))) > 1e-12 {
			t.Errorf("%d rows: loss %g, want %g", len(idx), got, lsum/float64(len(idx)))
		}
		for k, g := range x.Grad.Data {
			if math.Abs(g-want.Data[k]) > 1e-15 {
				t.Fatalf("%d rows: grad %d = %g, want %g", len(idx), k, g, want.Data[k])
			}
		}
	}
}

func benchmarkSoftmaxCE(b *testing.B, R, C int) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := ewtVar[float32](rng, "x", R, C, ewtUniform(-3, 3))
	labels := ewtLabels(R, C)
	var tp Tape[float32]
	b.ReportAllocs()
	for b.Loop() {
		tp.Reset()
		loss := SoftmaxCrossEntropy(&tp, x, labels, nil)
		if err := tp.Backward(loss); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSoftmaxCrossEntropy2708x7 times forward+backward at Cora's size.
func BenchmarkSoftmaxCrossEntropy2708x7(b *testing.B) { benchmarkSoftmaxCE(b, 2708, 7) }

// BenchmarkSoftmaxCrossEntropy2708x64 is the same with 64 classes.
func BenchmarkSoftmaxCrossEntropy2708x64(b *testing.B) { benchmarkSoftmaxCE(b, 2708, 64) }

func TestSoftmaxForward(t *testing.T) {
	rows := [][]float64{{1, 2, 3}, {0, 0, 0}, {1000, 0, -1000}, {-1e30, 1e30, 5}}
	x := NewVar(tensor.FromRows(rows), true)
	var tp Tape[float64]
	sm, lsm := Softmax(&tp, x), LogSoftmax(&tp, x)
	for i, r := range rows {
		m := math.Inf(-1)
		for _, v := range r {
			m = math.Max(m, v)
		}
		var z float64
		for _, v := range r {
			z += math.Exp(v - m)
		}
		for j, v := range r {
			wantL := v - m - math.Log(z)
			if got := lsm.Value.At(i, j); math.Abs(got-wantL) > 1e-12*math.Max(1, math.Abs(wantL)) {
				t.Errorf("LogSoftmax (%d,%d) = %g, want %g", i, j, got, wantL)
			}
			if got, want := sm.Value.At(i, j), math.Exp(wantL); math.Abs(got-want) > 1e-15 {
				t.Errorf("Softmax (%d,%d) = %g, want %g", i, j, got, want)
			}
		}
	}
	if err := tp.BackwardSeeded(lsm, nil); err != nil {
		t.Fatal(err)
	}
	for _, g := range x.Grad.Data {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			t.Fatalf("LogSoftmax gradient %v", x.Grad.Data)
		}
	}
}

func TestSoftmaxCrossEntropyNoGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x := ewtVar[float64](rng, "x", 6, 4, nil)
	labels := ewtLabels(6, 4)
	var train Tape[float64]
	eval := Tape[float64]{NoGrad: true}
	a := SoftmaxCrossEntropy(&train, x, labels, []int32{1, 2}).Value.Data[0]
	l := SoftmaxCrossEntropy(&eval, x, labels, []int32{1, 2})
	if l.RequiresGrad() || l.Value.Data[0] != a {
		t.Errorf("NoGrad loss %g (requires grad %v), want %g", l.Value.Data[0], l.RequiresGrad(), a)
	}
}
