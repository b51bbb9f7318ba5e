package main

import (
	"fmt"
	"io"
)

func runPredict(args []string, stdout, stderr io.Writer) error {
	return fmt.Errorf("predict: not built yet (needs saved models)")
}
