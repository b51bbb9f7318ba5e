package slurm

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/prcaps/prcaps/internal/atomicfile"
)

// Job is a sharded command and its merge, as two batch scripts.
type Job struct {
	// Name is the jobs' name (--job-name); the merge job's is Name-merge.
	Name string
	// Dir is the absolute directory the jobs run in (--chdir): the
	// submitting command's, so that relative paths in Task and Merge mean
	// what they meant there.
	Dir string
	// OutDir is the absolute directory of the scripts (Write) and of the
	// jobs' output (shard-I.out, merge.out).
	OutDir string
	// Tasks is the number of shards, the array's tasks 1..Tasks.
	Tasks int
	// Task is the argv of every task, the shard arguments left out: the
	// script appends --shard I/Tasks and --log LogDir/shard-I.jsonl, I
	// being $SLURM_ARRAY_TASK_ID. Tasks is written as a number, not
	// $SLURM_ARRAY_TASK_COUNT, which is 1 when a single failed task is
	// resubmitted with --array=I.
	Task []string
	// LogDir is the absolute directory of the shards' logs.
	LogDir string
	// Merge is the argv of the merge job, run once every task has
	// succeeded.
	Merge []string
	// CPUsPerTask (--cpus-per-task) and MemMB (--mem, in MiB) size a
	// task; MergeMemMB the merge job. Zero leaves them to the cluster's
	// defaults.
	CPUsPerTask       int
	MemMB, MergeMemMB int64
	// Options are more sbatch options, each one argument as on sbatch's
	// command line ("--partition=short", "--time=2:00:00",
	// "--account=lab"), written into both scripts; one given here
	// overrides the same option the fields above set.
	Options []string
}

// optionRE is one sbatch option as a script's #SBATCH line takes it: a
// long option with an optional =value, or a short one with its value.
var optionRE = regexp.MustCompile(`^(--[a-z][a-z0-9-]*(=[^\n]*)?|-[A-Za-z]( ?[^\n]*)?)$`)

// Check reports a job that cannot be written.
func (j Job) Check() error {
	switch {
	case j.Tasks < 1:
		return fmt.Errorf("slurm: %d tasks; want at least 1", j.Tasks)
	case len(j.Task) == 0 || len(j.Merge) == 0:
		return fmt.Errorf("slurm: no task or merge command")
	case !filepath.IsAbs(j.Dir) || !filepath.IsAbs(j.OutDir) || !filepath.IsAbs(j.LogDir):
		return fmt.Errorf("slurm: the directories %q, %q and %q must be absolute (the jobs run elsewhere)", j.Dir, j.OutDir, j.LogDir)
	case j.CPUsPerTask < 0 || j.MemMB < 0 || j.MergeMemMB < 0:
		return fmt.Errorf("slurm: negative size")
	}
	for _, o := range j.Options {
		if !optionRE.MatchString(o) {
			return fmt.Errorf("slurm: sbatch option %q: want one option such as --partition=short or --time=2:00:00", o)
		}
		switch optionName(o) {
		case "--array", "--dependency", "-d", "-a", "--chdir", "-D", "--output", "-o", "--parsable", "--wrap":
			return fmt.Errorf("slurm: sbatch option %q is the job's own: the scripts set it", o)
		}
	}
	for _, a := range append(append([]string{}, j.Task...), j.Merge...) {
		if strings.ContainsAny(a, "\x00\n") {
			return fmt.Errorf("slurm: argument %q holds a NUL or a newline", a)
		}
	}
	return nil
}

// optionName is the option of "--name=value" or "-x value".
func optionName(o string) string {
	if strings.HasPrefix(o, "--") {
		n, _, _ := strings.Cut(o, "=")
		return n
	}
	return o[:2]
}

// Scripts returns the array job's script and the merge job's.
func (j Job) Scripts() (array, merge string, err error) {
	if err := j.Check(); err != nil {
		return "", "", err
	}
	name := j.Name
	if name == "" {
		name = "prcaps"
	}
	head := func(b *strings.Builder, name, out string, cpus int, mem int64) {
		b.WriteString("#!/bin/bash\n")
		fmt.Fprintf(b, "#SBATCH --job-name=%s\n", name)
		fmt.Fprintf(b, "#SBATCH --chdir=%s\n", j.Dir)
		fmt.Fprintf(b, "#SBATCH --output=%s\n", filepath.Join(j.OutDir, out))
		set := map[string]bool{}
		for _, o := range j.Options {
			set[optionName(o)] = true
		}
		if cpus > 0 && !set["--cpus-per-task"] && !set["-c"] {
			fmt.Fprintf(b, "#SBATCH --cpus-per-task=%d\n", cpus)
		}
		if mem > 0 && !set["--mem"] && !set["--mem-per-cpu"] {
			fmt.Fprintf(b, "#SBATCH --mem=%dM\n", mem)
		}
		for _, o := range j.Options {
			fmt.Fprintf(b, "#SBATCH %s\n", o)
		}
	}
	var a strings.Builder
	head(&a, name, "shard-%a.out", j.CPUsPerTask, j.MemMB)
	fmt.Fprintf(&a, "#SBATCH --array=1-%d\n", j.Tasks)
	fmt.Fprintf(&a, "# Task I trains shard I/%d into %s/shard-I.jsonl. A task that failed\n", j.Tasks, j.LogDir)
	a.WriteString("# reruns with the same command, resuming from its log: sbatch --array=I this-file\n")
	a.WriteString("set -euo pipefail\n")
	a.WriteString(": \"${SLURM_ARRAY_TASK_ID:?not a Slurm array task: submit this script with sbatch}\"\n")
	fmt.Fprintf(&a, "exec %s --shard \"${SLURM_ARRAY_TASK_ID}/%d\" --log %s/\"shard-${SLURM_ARRAY_TASK_ID}.jsonl\"\n",
		quoteArgs(j.Task), j.Tasks, quote(j.LogDir))

	var m strings.Builder
	head(&m, name+"-merge", "merge.out", 0, j.MergeMemMB)
	fmt.Fprintf(&m, "# Submitted with --dependency=afterok:<the array job>: it runs once all %d tasks\n", j.Tasks)
	m.WriteString("# have succeeded, and makes the tables from their logs.\n")
	m.WriteString("set -euo pipefail\n")
	fmt.Fprintf(&m, "exec %s\n", quoteArgs(j.Merge))
	return a.String(), m.String(), nil
}

// quote is s as one shell word: bare when it is made of safe characters,
// else in single quotes.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+,./:@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quote(a)
	}
	return strings.Join(q, " ")
}

// Write writes the scripts into OutDir, each whole or not at all, as
// shards.sbatch and merge.sbatch, and returns their paths.
func (j Job) Write() (arrayPath, mergePath string, err error) {
	array, merge, err := j.Scripts()
	if err != nil {
		return "", "", err
	}
	arrayPath, mergePath = filepath.Join(j.OutDir, "shards.sbatch"), filepath.Join(j.OutDir, "merge.sbatch")
	if err := atomicfile.WriteFile(arrayPath, []byte(array)); err != nil {
		return "", "", err
	}
	if err := atomicfile.WriteFile(mergePath, []byte(merge)); err != nil {
		return "", "", err
	}
	return arrayPath, mergePath, nil
}
