// Command sets prints the kernel sets this CPU and build can run, best
// first, one line each: the values PRCAPS_KERNELS accepts here. .ci/run
// runs the kernel packages' tests once per line.
package main

import (
	"fmt"

	"github.com/prcaps/prcaps/internal/kernels"
)

func main() {
	for _, s := range kernels.Available() {
		fmt.Println(s)
	}
}
