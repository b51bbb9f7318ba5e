package autodiff

import "fmt"

// penaltyOp is the record of out = y that also charges weight·Σ penalty
// to the loss.
type penaltyOp[T Float] struct {
	y, penalty *Var[T]
	weight     float64
}

// Backward implements Op: ∂y += ∂out, and every element of the penalty
// receives weight, its gradient in loss + weight·Σ penalty, whatever ∂out
// is.
func (p *penaltyOp[T]) Backward(out *Var[T]) {
	if p.y.requiresGrad {
		for i, g := range out.Grad.Data {
			p.y.Grad.Data[i] += g
		}
	}
	if p.penalty.requiresGrad {
		w := T(p.weight)
		for i := range p.penalty.Grad.Data {
			p.penalty.Grad.Data[i] += w
		}
	}
}

// AddPenalty returns y unchanged (a copy) and makes a backward pass from
// any loss computed from the result differentiate loss + weight·Σ penalty
// instead of the loss alone: a regulariser for a model whose trainer only
// sees its output (the trainer's loss is then a function of the output,
// and the penalty is added to its gradient, not to its reported value).
// The penalty must be recorded on the same tape as y's consumers, before
// the result. The backward pass must run once per forward pass from a
// loss that is not rescaled after the fact: a trainer that splits a
// mini-batch into weighted micro-batches would charge the penalty once per
// micro-batch at full weight.
func AddPenalty[T Float](t *Tape[T], y, penalty *Var[T], weight float64) *Var[T] {
	if weight != weight {
		panic(fmt.Sprintf("autodiff: AddPenalty with weight %v", weight))
	}
	out := t.Node(y.Value.Rows, y.Value.Cols, y, penalty)
	copy(out.Value.Data, y.Value.Data)
	if out.requiresGrad {
		p := OpOf[penaltyOp[T]](out)
		p.y, p.penalty, p.weight = y, penalty, weight
	}
	return out
}
