package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/prcaps/prcaps/experiment"
	"github.com/prcaps/prcaps/slurm"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// slurmFlags are bench's own flags of --slurm, left out of the commands
// the jobs run, with the flags the jobs set themselves.
var slurmFlags = map[string]bool{"slurm": true, "slurm-dir": true, "submit": true, "sbatch": true,
	"shard": true, "log": true, "log-only": true, "out": true, "cpuprofile": true, "list": true}

// givenArgs are the flags given to fs, as --name=value, those in skip
// left out: the command a job runs again.
func givenArgs(fs *flag.FlagSet, skip map[string]bool) []string {
	var args []string
	fs.Visit(func(f *flag.Flag) {
		if !skip[f.Name] {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	return args
}

// runSlurm writes (and with --submit submits) the Slurm array job of
// --slurm N shards of the selected tables and their merge job.
//
// memory is the bench's estimate of a shard's memory with runsAtOnce runs
// at once (0: the merge's).
func runSlurm(f benchFlags, memory func(b *experiment.Bench, runsAtOnce int) (int64, error), stdout, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("--slurm: the path of this prcaps binary, which the jobs run: %w", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	b, err := experiment.NewBench(f.opt, nil)
	if err != nil {
		return err
	}
	cpus := max(f.opt.Parallel, 1)
	mem, err := memory(b, cpus)
	if err != nil {
		return err
	}
	mergeMem, err := memory(b, 0)
	if err != nil {
		return err
	}
	job, err := slurm.NewBenchJob(exe, wd, f.slurmDir, f.out, f.jobArgs, f.slurm, cpus, mem, mergeMem, f.sbatch)
	if err != nil {
		return fmt.Errorf("--slurm-dir: %w", err)
	}
	outDir := job.OutDir
	arrayPath, mergePath, err := job.Write()
	if err != nil {
		return usagef("--sbatch: %v", err)
	}
	fmt.Fprintf(stdout, "wrote %s (%d tasks, %d CPU(s) and %d MiB each by the bench's memory estimate) and %s (the merge, %d MiB)\n",
		arrayPath, f.slurm, cpus, job.MemMB, mergePath, job.MergeMemMB)
	if !f.submit {
		fmt.Fprintf(stdout, "submit with: jid=$(sbatch --parsable %s) && sbatch --dependency=afterok:$jid --kill-on-invalid-dep=yes %s\n", arrayPath, mergePath)
		return nil
	}
	ids, err := slurm.Submit(context.Background(), arrayPath, mergePath)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "submitted array job %s (tasks 1-%d, output %s) and merge job %s (after every task succeeds, output %s)\n",
		ids.Array, f.slurm, filepath.Join(outDir, "shard-<I>.out"), ids.Merge, filepath.Join(outDir, "merge.out"))
	fmt.Fprintf(stdout, "a failed task reruns with its own command and resumes from its log: jid=$(sbatch --parsable --array=<I> %s) && sbatch --dependency=afterok:$jid %s\n", arrayPath, mergePath)
	return nil
}
