package manifold_test

import (
	"fmt"
	"math"

	"github.com/prcaps/prcaps/manifold"
)

// exp̂_o maps a tangent vector at the pole onto the pseudo-hyperboloid Q, and
// loĝ_o maps it back.
func ExampleExpOVec() {
	dims := manifold.Dims{S: 2, T: 1} // points in R^4: time block (x₀, x₁), space block (x₂, x₃)
	beta := -1.0
	xi := []float64{0.5, 1, -2} // tangent coordinates: ξ_T = (0.5), ξ_S = (1, −2)
	x := manifold.ExpOVec(xi, beta, dims)
	fmt.Printf("⟨x,x⟩ = %.6f\n", manifold.Inner(x, x, dims))
	back := manifold.LogOVec(x, beta, dims)
	fmt.Printf("loĝ(exp̂(ξ)) = %.6f %.6f %.6f\n", back[0], back[1], back[2])
	fmt.Println(math.Abs(back[0]-xi[0]) < 1e-12)
	// Output:
	// ⟨x,x⟩ = -1.000000
	// loĝ(exp̂(ξ)) = 0.500000 1.000000 -2.000000
	// true
}
