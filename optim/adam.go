package optim

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/tensor"
)

// Variant selects the update rule of an Adam optimiser.
type Variant int

const (
	// VariantAdam is torch.optim.Adam: weight decay is an L2 penalty added
	// to the gradient (grad += wd·p) before the moments.
	VariantAdam Variant = iota
	// VariantAdamW is torch.optim.AdamW: decoupled decay p ← p·(1 − lr·wd)
	// before the Adam update of the undecayed gradient.
	VariantAdamW
	// VariantRiemannianAdam is geoopt.optim.RiemannianAdam: coupled L2
	// decay, Riemannian gradient, per-component second moment, retraction
	// and transport of the first moment. On Euclidean parameters it is Adam.
	VariantRiemannianAdam
)

// String returns the variant's name.
func (v Variant) String() string {
	switch v {
	case VariantAdam:
		return "Adam"
	case VariantAdamW:
		return "AdamW"
	case VariantRiemannianAdam:
		return "RiemannianAdam"
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// Adam is the Adam family of optimisers (see Variant). Build it with NewAdam,
// NewAdamW or NewRiemannianAdam. It is not safe for concurrent use.
type Adam[T tensor.Float] struct {
	variant Variant
	cfg     Config
	lr      float64
	groups  []Group[T]
	state   [][]*paramState[T] // [group][param], nil until the first Step
	active  []*autodiff.Var[T] // parameters of non-frozen groups
}

// paramState is one parameter's Adam state and, for manifold parameters,
// the scratch space of its update.
type paramState[T tensor.Float] struct {
	step int
	m    tensor.Dense[T] // exp_avg (a Dense so that a Manifold can transport it)
	v    []T             // exp_avg_sq
	vmax []T             // max_exp_avg_sq (AMSGrad only)
	// Manifold parameters only.
	rg  tensor.Dense[T] // Riemannian gradient
	u   tensor.Dense[T] // component inner, then the tangent step
	row []T             // per-row inner when the Manifold has no ComponentInner
}

// NewAdam returns torch.optim.Adam: bias-corrected moments, eps added after
// the square root, weight decay as an L2 term coupled into the gradient.
// Groups must not carry a Manifold.
func NewAdam[T tensor.Float](cfg Config, groups ...Group[T]) (*Adam[T], error) {
	return newAdam(VariantAdam, cfg, groups)
}

// NewAdamW returns torch.optim.AdamW: decoupled weight decay p ← p − lr·wd·p
// before the Adam update. Groups must not carry a Manifold.
func NewAdamW[T tensor.Float](cfg Config, groups ...Group[T]) (*Adam[T], error) {
	return newAdam(VariantAdamW, cfg, groups)
}

// NewRiemannianAdam returns geoopt.optim.RiemannianAdam (Bécigneul & Ganea,
// "Riemannian Adaptive Optimization Methods", ICLR 2019). Per parameter and
// step, with x the point and g the gradient:
//
//	x ← Proj(x)
//	r ← egrad2rgrad(x, g + wd·x)
//	m ← β1·m + (1−β1)·r
//	v ← β2·v + (1−β2)·component_inner(x, r)
//	d ← (m / (1−β1^t)) / (sqrt(v / (1−β2^t)) + eps)
//	x, m ← retr_transp(x, −lr·d, m)
//
// Groups with a nil Manifold are Euclidean (component_inner = r⊙r,
// retraction x + u, identity transport), which makes this Adam with coupled
// L2 decay (equal to NewAdam up to rounding: geoopt divides by the bias
// corrections in a different place). For manifold groups the second moment is the Manifold's
// ComponentInner when it has one, else its row Inner broadcast over the row
// (geoopt's default component_inner).
func NewRiemannianAdam[T tensor.Float](cfg Config, groups ...Group[T]) (*Adam[T], error) {
	return newAdam(VariantRiemannianAdam, cfg, groups)
}

func newAdam[T tensor.Float](variant Variant, cfg Config, groups []Group[T]) (*Adam[T], error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg.Stabilize != 0 && variant != VariantRiemannianAdam {
		return nil, fmt.Errorf("optim: Stabilize applies to RiemannianAdam only, not %v", variant)
	}
	o := &Adam[T]{variant: variant, cfg: cfg, lr: cfg.LR}
	seen := make(map[*autodiff.Var[T]]string)
	total := 0
	for i, g := range groups {
		if !(g.LRScale >= 0) || math.IsInf(g.LRScale, 0) {
			return nil, fmt.Errorf("optim: %s: invalid LRScale %v", g.label(i), g.LRScale)
		}
		if g.LRScale == 0 {
			g.LRScale = 1
		}
		if g.Manifold != nil && variant != VariantRiemannianAdam {
			return nil, fmt.Errorf("optim: %s has a Manifold, which %v cannot handle: use NewRiemannianAdam", g.label(i), variant)
		}
		g.Params = append([]*autodiff.Var[T](nil), g.Params...)
		for j, p := range g.Params {
			if p == nil {
				return nil, fmt.Errorf("optim: %s: parameter %d is nil", g.label(i), j)
			}
			if !p.RequiresGrad() {
				return nil, fmt.Errorf("optim: %s: %s does not require a gradient", g.label(i), paramLabel(p, j))
			}
			if prev, dup := seen[p]; dup {
				return nil, fmt.Errorf("optim: %s: %s is also in %s", g.label(i), paramLabel(p, j), prev)
			}
			seen[p] = g.label(i)
		}
		total += len(g.Params)
		o.groups = append(o.groups, g)
		o.state = append(o.state, make([]*paramState[T], len(g.Params)))
	}
	if total == 0 {
		return nil, fmt.Errorf("optim: %v got no parameters", variant)
	}
	o.refreshActive()
	return o, nil
}

func (o *Adam[T]) refreshActive() {
	o.active = o.active[:0]
	for _, g := range o.groups {
		if !g.Frozen && !g.Buffer {
			o.active = append(o.active, g.Params...)
		}
	}
}

// Variant reports the update rule.
func (o *Adam[T]) Variant() Variant { return o.variant }

// Config returns the hyper-parameters, defaults filled in. Its LR is the
// initial one; see LR for the current one.
func (o *Adam[T]) Config() Config { return o.cfg }

// LR returns the base learning rate.
func (o *Adam[T]) LR() float64 { return o.lr }

// SetLR sets the base learning rate; each group steps with lr·LRScale.
func (o *Adam[T]) SetLR(lr float64) { o.lr = lr }

// Params returns the parameters of the groups that are not frozen, e.g. for
// ClipGradNorm (frozen parameters still receive gradients from autodiff, but
// like PyTorch parameters with requires_grad off they must not shrink the
// others' clipping coefficient). The slice belongs to the optimiser: do not
// modify it.
func (o *Adam[T]) Params() []*autodiff.Var[T] { return o.active }

// NumGroups returns the number of parameter groups.
func (o *Adam[T]) NumGroups() int { return len(o.groups) }

// SetFrozen freezes or thaws group i (e.g. to warm up with fixed curvature).
// A thawed group resumes from its kept state.
func (o *Adam[T]) SetFrozen(i int, frozen bool) error {
	if i < 0 || i >= len(o.groups) {
		return fmt.Errorf("optim: group %d out of range [0, %d)", i, len(o.groups))
	}
	o.groups[i].Frozen = frozen
	o.refreshActive()
	return nil
}

// ZeroGrad zeroes the gradients of all parameters, frozen ones included.
func (o *Adam[T]) ZeroGrad() {
	for _, g := range o.groups {
		for _, p := range g.Params {
			p.ZeroGrad()
		}
	}
}

// Reset forgets all state: moments and step counts restart from zero. The
// buffers are kept, so a reset optimiser allocates nothing on its next Step
// (unless a parameter changed shape, which Reset makes legal).
func (o *Adam[T]) Reset() {
	for _, gs := range o.state {
		for _, st := range gs {
			if st == nil {
				continue
			}
			st.step = 0
			st.m.Zero()
			clear(st.v)
			clear(st.vmax)
		}
	}
}

// StepCount returns how many updates parameter p has received since it was
// added or since the last Reset (0 for unknown parameters).
func (o *Adam[T]) StepCount(p *autodiff.Var[T]) int {
	for i, g := range o.groups {
		for j, q := range g.Params {
			if q == p && o.state[i][j] != nil {
				return o.state[i][j].step
			}
		}
	}
	return 0
}

// Step applies one update to every parameter of the groups that are not
// frozen. A parameter without a gradient buffer (Grad of length 0) is
// skipped, like a parameter whose .grad is None in PyTorch. Step does not
// check gradients for NaN (ClipGradNorm and GradNorm do); it returns an error
// when a gradient's shape differs from its parameter's, when a parameter
// changed shape since its state was made (call Reset), or when a Manifold's
// second-moment contribution is negative or not finite. Parameters updated
// before the error keep their update.
func (o *Adam[T]) Step() error {
	for i := range o.groups {
		g := &o.groups[i]
		if g.Frozen || g.Buffer {
			continue
		}
		lr := o.lr * g.LRScale
		wd := o.cfg.WeightDecay
		if g.NoWeightDecay {
			wd = 0
		}
		for j, p := range g.Params {
			n := p.Value.Len()
			if p.Grad.Len() == 0 && n != 0 {
				continue
			}
			if !p.Grad.SameShape(&p.Value) {
				return fmt.Errorf("optim: %s: %s is %d×%d but its gradient is %d×%d", g.label(i), paramLabel(p, j),
					p.Value.Rows, p.Value.Cols, p.Grad.Rows, p.Grad.Cols)
			}
			st := o.state[i][j]
			if st == nil || (st.step == 0 && !st.m.SameShape(&p.Value)) {
				// First step, or the first after a Reset of a reshaped
				// parameter.
				st = o.newState(&p.Value, g.Manifold != nil)
				o.state[i][j] = st
			} else if !st.m.SameShape(&p.Value) {
				return fmt.Errorf("optim: %s: %s changed shape from %d×%d to %d×%d since its state was made; call Reset",
					g.label(i), paramLabel(p, j), st.m.Rows, st.m.Cols, p.Value.Rows, p.Value.Cols)
			}
			st.step++
			c := o.coeffs(st.step, lr, wd)
			switch {
			case g.Manifold != nil:
				if err := manifoldStep(g.Manifold, p, st, &c, o.cfg.Stabilize); err != nil {
					st.step--
					return fmt.Errorf("optim: %s: %s: %w", g.label(i), paramLabel(p, j), err)
				}
			case o.variant == VariantRiemannianAdam:
				geooptEuclidean(p.Value.Data, p.Grad.Data, st.m.Data, st.v, st.vmax, &c)
			default:
				torchAdam(p.Value.Data, p.Grad.Data, st.m.Data, st.v, st.vmax, &c)
			}
		}
	}
	return nil
}

func (o *Adam[T]) newState(x *tensor.Dense[T], onManifold bool) *paramState[T] {
	st := &paramState[T]{
		m: *tensor.NewDense[T](x.Rows, x.Cols),
		v: make([]T, x.Len()),
	}
	if o.cfg.AMSGrad {
		st.vmax = make([]T, x.Len())
	}
	if onManifold {
		st.rg = *tensor.NewDense[T](x.Rows, x.Cols)
		st.u = *tensor.NewDense[T](x.Rows, x.Cols)
		st.row = make([]T, x.Rows)
	}
	return st
}

// coeffs are the scalars of one parameter's update at one step.
type coeffs struct {
	b1, b2   float64 // betas
	c1, c2   float64 // 1 − betas
	l2       float64 // coupled weight decay (Adam, RiemannianAdam)
	lrwd     float64 // decoupled decay lr·wd (AdamW; 0 otherwise)
	lr       float64
	bc1, bc2 float64 // bias corrections 1 − β^t
	stepSize float64 // lr / bc1 (torch form)
	bc2Sqrt  float64 // sqrt(bc2) (torch form)
	eps      float64
	amsgrad  bool
}

func (o *Adam[T]) coeffs(step int, lr, wd float64) coeffs {
	c := coeffs{
		b1: o.cfg.Beta1, b2: o.cfg.Beta2,
		c1: 1 - o.cfg.Beta1, c2: 1 - o.cfg.Beta2,
		lr: lr, eps: o.cfg.Eps, amsgrad: o.cfg.AMSGrad,
	}
	if o.variant == VariantAdamW {
		c.lrwd = lr * wd
	} else {
		c.l2 = wd
	}
	t := float64(step)
	c.bc1 = 1 - math.Pow(c.b1, t)
	c.bc2 = 1 - math.Pow(c.b2, t)
	c.stepSize = lr / c.bc1
	c.bc2Sqrt = math.Sqrt(c.bc2)
	return c
}

// torchAdam is the update of torch.optim.Adam / AdamW (single-tensor path):
//
//	p ← p·(1 − lr·wd)                        (AdamW only)
//	g ← g + wd·p                             (Adam only)
//	m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g²;  v̂ ← max(v̂, v) (AMSGrad)
//	p ← p − (lr/bc1) · m / (sqrt(v)/sqrt(bc2) + eps)
//
// Arithmetic is in T, as PyTorch computes in the parameter's dtype: in
// float32 the division and square root, which bound this loop, run at twice
// the float64 rate. Divisions by the bias corrections are multiplications by
// their reciprocals (computed in float64 per step), and the decoupled decay
// is applied as p − (lr·wd)·p, which equals PyTorch's p·(1 − lr·wd) up to
// rounding.
func torchAdam[T tensor.Float](p, g, m, v, vmax []T, c *coeffs) {
	// Scalars in locals: the compiler does not hoist loads through c past
	// the stores into the slices.
	b1, c1, b2, c2 := T(c.b1), T(c.c1), T(c.b2), T(c.c2)
	l2, lrwd, stepSize, eps := T(c.l2), T(c.lrwd), T(c.stepSize), T(c.eps)
	inv := T(1 / c.bc2Sqrt)
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	if c.amsgrad {
		vmax = vmax[:len(p)]
		for i := range p {
			x := p[i]
			gi := g[i] + l2*x
			mi := b1*m[i] + c1*gi
			vi := b2*v[i] + c2*gi*gi
			m[i], v[i] = mi, vi
			vmax[i] = max(vmax[i], vi)
			p[i] = x - lrwd*x - stepSize*(mi/(T(math.Sqrt(float64(vmax[i])))*inv+eps))
		}
		return
	}
	if p32, ok := any(p).([]float32); ok && haveAVX2 && len(p) >= 8 {
		n := len(p) &^ 7
		k := [9]float32{float32(l2), float32(b1), float32(c1), float32(b2), float32(c2),
			float32(inv), float32(eps), float32(stepSize), float32(lrwd)}
		adam32(&p32[0], &any(g).([]float32)[0], &any(m).([]float32)[0], &any(v).([]float32)[0], n, &k)
		p, g, m, v = p[n:], g[n:], m[n:], v[n:]
	}
	for i := range p {
		x := p[i]
		gi := g[i] + l2*x
		mi := b1*m[i] + c1*gi
		vi := b2*v[i] + c2*gi*gi
		m[i], v[i] = mi, vi
		p[i] = x - lrwd*x - stepSize*(mi/(T(math.Sqrt(float64(vi)))*inv+eps))
	}
}

// geooptEuclidean is RiemannianAdam's update on a Euclidean parameter, in
// geoopt's arithmetic: d = (m/bc1) / (sqrt(v/bc2) + eps), p ← p + (−lr·d).
// It equals torchAdam with coupled decay up to rounding.
func geooptEuclidean[T tensor.Float](p, g, m, v, vmax []T, c *coeffs) {
	b1, c1, b2, c2 := T(c.b1), T(c.c1), T(c.b2), T(c.c2)
	l2, nlr, eps := T(c.l2), T(-c.lr), T(c.eps)
	inv1, inv2 := T(1/c.bc1), T(1/c.bc2)
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	if c.amsgrad {
		vmax = vmax[:len(p)]
		for i := range p {
			x := p[i]
			gi := g[i] + l2*x
			mi := b1*m[i] + c1*gi
			vi := b2*v[i] + c2*gi*gi
			m[i], v[i] = mi, vi
			vmax[i] = max(vmax[i], vi)
			p[i] = x + nlr*((mi*inv1)/(T(math.Sqrt(float64(vmax[i]*inv2)))+eps))
		}
		return
	}
	if p32, ok := any(p).([]float32); ok && haveAVX2 && len(p) >= 8 {
		n := len(p) &^ 7
		k := [9]float32{float32(l2), float32(b1), float32(c1), float32(b2), float32(c2),
			float32(inv1), float32(inv2), float32(eps), float32(nlr)}
		geoopt32(&p32[0], &any(g).([]float32)[0], &any(m).([]float32)[0], &any(v).([]float32)[0], n, &k)
		p, g, m, v = p[n:], g[n:], m[n:], v[n:]
	}
	for i := range p {
		x := p[i]
		gi := g[i] + l2*x
		mi := b1*m[i] + c1*gi
		vi := b2*v[i] + c2*gi*gi
		m[i], v[i] = mi, vi
		p[i] = x + nlr*((mi*inv1)/(T(math.Sqrt(float64(vi*inv2)))+eps))
	}
}

// manifoldStep is RiemannianAdam's update of a manifold parameter (see
// NewRiemannianAdam); the point and the first moment move through the
// Manifold. The second-moment contribution is checked before any state
// changes, so an error leaves the parameter and its moments as they were
// (apart from the projection of the point).
func manifoldStep[T tensor.Float](man Manifold[T], p *autodiff.Var[T], st *paramState[T], c *coeffs, stabilize int) error {
	x := &p.Value
	// geoopt projects the point before every step, for numerical stability.
	man.Proj(x)
	rg, u := st.rg.Data, st.u.Data
	for i, gi := range p.Grad.Data {
		rg[i] = T(float64(gi) + c.l2*float64(x.Data[i]))
	}
	man.EgradToRgrad(x, &st.rg)
	// The second-moment term goes into u first; u becomes the step below.
	if ci, ok := man.(ComponentInner[T]); ok {
		ci.ComponentInner(x, &st.rg, &st.u)
	} else {
		man.Inner(x, &st.rg, &st.rg, st.row)
		cols := x.Cols
		for r, w := range st.row {
			row := u[r*cols : (r+1)*cols]
			for k := range row {
				row[k] = w
			}
		}
	}
	for i, w := range u {
		if !(w >= 0) || math.IsInf(float64(w), 1) {
			return fmt.Errorf("second-moment term %v at element %d is negative or not finite", w, i)
		}
	}
	m, v, vmax := st.m.Data, st.v, st.vmax
	for i := range u {
		m[i] = T(c.b1*float64(m[i]) + c.c1*float64(rg[i]))
		v[i] = T(c.b2*float64(v[i]) + c.c2*float64(u[i]))
		vi := float64(v[i])
		if c.amsgrad {
			if vm := float64(vmax[i]); vm > vi {
				vi = vm
			} else {
				vmax[i] = v[i]
			}
		}
		d := (float64(m[i]) / c.bc1) / (math.Sqrt(vi/c.bc2) + c.eps)
		u[i] = T(-c.lr * d)
	}
	man.RetrTransp(x, &st.u, &st.m)
	if stabilize > 0 && st.step%stabilize == 0 {
		// geoopt's stabilize_group: back onto the manifold, and the moment
		// back onto the tangent space there.
		man.Proj(x)
		if tp, ok := man.(TangentProjector[T]); ok {
			tp.Proju(x, &st.m)
		}
	}
	return nil
}
