package main

// rule is an epoch-selection rule: pick returns the index of the chosen
// epoch from the per-epoch validation accuracy and mean loss.
type rule struct {
	name string
	pick func(acc, loss []float64) int
}

// rules are the candidates of docs/notes/epoch-selection.md, fixed before the
// study was run; the first is the reference of the paired differences.
var rules = []rule{
	{"R0 max acc, tie min loss", func(a, l []float64) int { return best(a, true, l, false) }},
	{"R1 min loss", func(a, l []float64) int { return best(l, false, nil, false) }},
	{"R2 max acc, tie latest", func(a, l []float64) int { return best(a, true, nil, true) }},
	{"R3 max acc smoothed w5, tie min loss", func(a, l []float64) int { return best(smooth(a, 5), true, l, false) }},
	{"R4 max acc smoothed w11, tie min loss", func(a, l []float64) int { return best(smooth(a, 11), true, l, false) }},
	{"R5 min loss smoothed w5", func(a, l []float64) int { return best(smooth(l, 5), false, nil, false) }},
	{"R6 last epoch", func(a, l []float64) int { return len(a) - 1 }},
}

// best returns the epoch with the highest (or lowest) primary value. Ties go
// to the lower tie value if tie is non-nil, else to the later epoch if
// latest, else to the earlier epoch.
func best(primary []float64, higher bool, tie []float64, latest bool) int {
	b := 0
	for e := 1; e < len(primary); e++ {
		p, q := primary[e], primary[b]
		if !higher {
			p, q = -p, -q
		}
		switch {
		case p > q:
			b = e
		case p == q && tie != nil:
			if tie[e] < tie[b] {
				b = e
			}
		case p == q && latest:
			b = e
		}
	}
	return b
}

// smooth returns the centred moving average of x over w epochs (w odd),
// over the epochs that exist at the ends.
func smooth(x []float64, w int) []float64 {
	out := make([]float64, len(x))
	h := w / 2
	for i := range x {
		lo, hi := max(0, i-h), min(len(x)-1, i+h)
		s := 0.0
		for j := lo; j <= hi; j++ {
			s += x[j]
		}
		out[i] = s / float64(hi-lo+1)
	}
	return out
}
