package predict

import (
	"fmt"
	"math"
)

// Edge is one edge of a Graph, the ids of its two end nodes. In JSON it is
// an array of exactly two integers: [0] or [0, 1, 2] is an error, never
// the edge (0, 0) or (0, 1) that a Go array would silently make of it.
type Edge [2]int

// UnmarshalJSON reads [u, v]. It parses the bytes itself, allocating
// nothing: a request holds up to millions of edges.
func (e *Edge) UnmarshalJSON(b []byte) error {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '[' {
		return fmt.Errorf("edge %s: want [u, v]", clip(b))
	}
	for k := range 2 {
		j := skipSpace(b, i+1)
		n, end, ok := parseInt(b, j)
		if !ok {
			return fmt.Errorf("edge %s: want two integer node ids, [u, v]", clip(b))
		}
		e[k] = n
		i = skipSpace(b, end)
		if want := ",]"[k]; i == len(b) || b[i] != want {
			return fmt.Errorf("edge %s: want two node ids, [u, v]", clip(b))
		}
	}
	if skipSpace(b, i+1) != len(b) {
		return fmt.Errorf("edge %s: want [u, v]", clip(b))
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// parseInt reads an optionally negative decimal integer at b[i:], as JSON
// writes one (no fraction or exponent), and where it ends.
func parseInt(b []byte, i int) (n, end int, ok bool) {
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	start := i
	var u uint64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if u > (math.MaxInt64-uint64(b[i]-'0'))/10 {
			return 0, i, false
		}
		u = 10*u + uint64(b[i]-'0')
	}
	if i == start {
		return 0, i, false
	}
	if neg {
		return -int(u), i, true
	}
	return int(u), i, true
}

// clip shortens b for an error message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
