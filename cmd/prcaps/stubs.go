package main

import (
	"fmt"
	"io"
)

func runBench(args []string, stdout, stderr io.Writer) error {
	return fmt.Errorf("bench: not built yet (the paper's table suites arrive with the PR-CapsNet model)")
}

func runPredict(args []string, stdout, stderr io.Writer) error {
	return fmt.Errorf("predict: not built yet (needs saved models)")
}
