package tensor

import (
	"fmt"
	"strings"
	"testing"
)

// A shape whose size overflows int panics rather than making a matrix of
// that shape with a short buffer (a checkpoint declaring 2^62 features once
// built such a parameter).
func TestNewDenseOverflow(t *testing.T) {
	defer func() {
		if e := recover(); e == nil || !strings.Contains(fmt.Sprint(e), "overflows") {
			t.Errorf("NewDense(1<<62, 64): recovered %v", e)
		}
	}()
	NewDense[float32](1<<62, 64)
}
