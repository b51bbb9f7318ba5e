package tsne

import "math"

// maxDepth bounds the depth of the quadtree. Cells at this depth are leaves
// even when they hold several points (coincident or nearly so); their
// points are then handled one by one, exactly.
const maxDepth = 48

// qnode is a quadtree cell: the square [ox, ox+side] × [oy, oy+side] holding
// the points perm[lo:hi] of its tree, with centre of mass (cx, cy). Its
// non-empty children are the nchild nodes from first on; a leaf has
// nchild == 0.
type qnode struct {
	cx, cy float64
	ox, oy float64
	side   float64
	lo, hi int32
	first  int32
	nchild int32
	_      [8]byte // pad to 64 bytes, one cache line
}

// quadtree is a Barnes-Hut quadtree over 2-D points stored flat as
// y[2i], y[2i+1]. It is rebuilt each iteration in the same memory.
type quadtree struct {
	nodes []qnode
	perm  []int32 // point indices, grouped by cell
	y     []float64
}

// newQuadtree returns an empty tree for n points.
func newQuadtree(n int) *quadtree {
	t := &quadtree{perm: make([]int32, n), nodes: make([]qnode, 0, 2*n+1)}
	for i := range t.perm {
		t.perm[i] = int32(i)
	}
	return t
}

// build rebuilds the tree over y (len(y) == 2·len(t.perm)). The order of
// t.perm carries over from the previous build, so the result depends only
// on the sequence of positions.
func (t *quadtree) build(y []float64) {
	t.y = y
	t.nodes = t.nodes[:0]
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	for i := 0; i < len(y); i += 2 {
		minX, maxX = math.Min(minX, y[i]), math.Max(maxX, y[i])
		minY, maxY = math.Min(minY, y[i+1]), math.Max(maxY, y[i+1])
	}
	side := math.Max(maxX-minX, maxY-minY)
	t.nodes = append(t.nodes, qnode{})
	t.buildNode(0, 0, int32(len(t.perm)), minX, minY, side, 0)
}

func (t *quadtree) buildNode(ni, lo, hi int32, ox, oy, side float64, depth int) {
	nd := &t.nodes[ni]
	nd.ox, nd.oy, nd.side, nd.lo, nd.hi = ox, oy, side, lo, hi
	if hi-lo == 1 || depth == maxDepth || side == 0 {
		var sx, sy float64
		for _, j := range t.perm[lo:hi] {
			sx += t.y[2*j]
			sy += t.y[2*j+1]
		}
		m := float64(hi - lo)
		nd.cx, nd.cy = sx/m, sy/m
		return
	}
	h := side / 2
	mx, my := ox+h, oy+h
	// Split by y, then each half by x: quadrants SW, SE, NW, NE.
	ym := t.partition(lo, hi, 1, my)
	sw := t.partition(lo, ym, 0, mx)
	nw := t.partition(ym, hi, 0, mx)
	bounds := [5]int32{lo, sw, ym, nw, hi}
	corners := [4][2]float64{{ox, oy}, {mx, oy}, {ox, my}, {mx, my}}
	first := int32(len(t.nodes))
	var nchild int32
	for q := range 4 {
		if bounds[q+1] > bounds[q] {
			t.nodes = append(t.nodes, qnode{})
			nchild++
		}
	}
	// t.nodes may have moved; nd must not be used below.
	t.nodes[ni].first, t.nodes[ni].nchild = first, nchild
	c := first
	var sx, sy float64
	for q := range 4 {
		if bounds[q+1] > bounds[q] {
			t.buildNode(c, bounds[q], bounds[q+1], corners[q][0], corners[q][1], h, depth+1)
			m := float64(bounds[q+1] - bounds[q])
			sx += m * t.nodes[c].cx
			sy += m * t.nodes[c].cy
			c++
		}
	}
	m := float64(hi - lo)
	t.nodes[ni].cx, t.nodes[ni].cy = sx/m, sy/m
}

// partition reorders perm[lo:hi] so that the points with coordinate d below
// split come first, and returns the index of the first other point.
func (t *quadtree) partition(lo, hi int32, d int, split float64) int32 {
	i, j := lo, hi-1
	for {
		for i <= j && t.y[2*t.perm[i]+int32(d)] < split {
			i++
		}
		for i <= j && t.y[2*t.perm[j]+int32(d)] >= split {
			j--
		}
		if i >= j {
			return i
		}
		t.perm[i], t.perm[j] = t.perm[j], t.perm[i]
		i++
		j--
	}
}

// repulsion returns, for point i at (px, py), the Barnes-Hut estimates of
//
//	F = Σ_{j≠i} w_ij² (y_i − y_j)  and  Z_i = Σ_{j≠i} w_ij,  w_ij = 1/(1+‖y_i−y_j‖²),
//
// summarising a cell of side s whose centre of mass is at distance d as one
// body of its mass when s/d < theta (s² < theta2·d²) and the cell does not
// contain the point. theta2 = 0 gives the exact sums. The traversal is
// depth-first with an explicit stack, children in quadrant order.
func (t *quadtree) repulsion(i int32, px, py, theta2 float64) (fx, fy, z float64) {
	// Each level leaves at most 3 siblings on the stack.
	var stack [3*maxDepth + 4]int32
	sp := 1 // stack[0] = 0, the root
	nodes, perm, y := t.nodes, t.perm, t.y
	for sp > 0 {
		sp--
		nd := &nodes[stack[sp]]
		if nd.nchild == 0 {
			for _, j := range perm[nd.lo:nd.hi] {
				if j == i {
					continue
				}
				dx, dy := px-y[2*j], py-y[2*j+1]
				w := 1 / (1 + dx*dx + dy*dy)
				z += w
				w *= w
				fx += w * dx
				fy += w * dy
			}
			continue
		}
		dx, dy := px-nd.cx, py-nd.cy
		d2 := dx*dx + dy*dy
		if nd.side*nd.side < theta2*d2 &&
			(px < nd.ox || px > nd.ox+nd.side || py < nd.oy || py > nd.oy+nd.side) {
			m := float64(nd.hi - nd.lo)
			w := 1 / (1 + d2)
			z += m * w
			w *= m * w
			fx += w * dx
			fy += w * dy
			continue
		}
		for c := nd.first + nd.nchild - 1; c >= nd.first; c-- {
			stack[sp] = c
			sp++
		}
	}
	return fx, fy, z
}
