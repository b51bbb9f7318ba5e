package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Submitted are the job ids sbatch gave the array job and the merge job.
type Submitted struct {
	Array string `json:"array_job"`
	Merge string `json:"merge_job"`
}

// Submit submits the array script at arrayPath with sbatch, then the
// merge script at mergePath with --dependency=afterok on the array, so
// that the merge runs once every task has succeeded. sbatch (on $PATH)
// is the real Slurm client; --parsable makes it print the job id alone.
func Submit(ctx context.Context, arrayPath, mergePath string) (Submitted, error) {
	var s Submitted
	var err error
	if s.Array, err = sbatch(ctx, arrayPath); err != nil {
		return s, err
	}
	if s.Merge, err = sbatch(ctx, "--dependency=afterok:"+s.Array, "--kill-on-invalid-dep=yes", mergePath); err != nil {
		return s, fmt.Errorf("%w (the array job %s is submitted; cancel it with scancel %s, or submit the merge by hand: sbatch --dependency=afterok:%s %s)",
			err, s.Array, s.Array, s.Array, mergePath)
	}
	return s, nil
}

// sbatch runs sbatch --parsable args and returns the job id it prints.
func sbatch(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "sbatch", append([]string{"--parsable"}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("sbatch: not found on $PATH: submit from a Slurm login node, or write the scripts without --submit and submit them there")
		}
		return "", fmt.Errorf("sbatch %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	id, err := ParseJobID(out.String())
	if err != nil {
		return "", fmt.Errorf("sbatch %s: %w", strings.Join(args, " "), err)
	}
	return id, nil
}

// ParseJobID reads what sbatch --parsable prints: "id" or
// "id;cluster", with a newline.
func ParseJobID(out string) (string, error) {
	line := strings.TrimSpace(out)
	if i := strings.LastIndexByte(line, '\n'); i >= 0 { // warnings before it
		line = strings.TrimSpace(line[i+1:])
	}
	id, _, _ := strings.Cut(line, ";")
	if id == "" || strings.Trim(id, "0123456789") != "" {
		return "", fmt.Errorf("no job id in sbatch's output %q", out)
	}
	return id, nil
}
