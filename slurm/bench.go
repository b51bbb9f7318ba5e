package slurm

import (
	"os"
	"path/filepath"
)

// NewBenchJob is the Job of tasks shards, each running `exe bench args…`
// in dir (the task adds its --shard and --log), and of the merge, which
// renders the tables from the shards' logs (and writes them under out
// when out is not empty). Its scripts and outputs go in outDir, the
// shards' logs in outDir/logs, which it creates; mem and mergeMem (bytes)
// size a task and the merge, rounded up to MiB.
func NewBenchJob(exe, dir, outDir, out string, args []string, tasks, cpus int, mem, mergeMem int64, options []string) (Job, error) {
	outDir, err := filepath.Abs(outDir)
	if err != nil {
		return Job{}, err
	}
	logDir := filepath.Join(outDir, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return Job{}, err
	}
	task := append([]string{exe, "bench"}, args...)
	merge := append(append([]string{}, task...), "--log-only", "--log="+logDir)
	if out != "" {
		abs, err := filepath.Abs(out)
		if err != nil {
			return Job{}, err
		}
		merge = append(merge, "--out="+abs)
	}
	return Job{Name: "prcaps-bench", Dir: dir, OutDir: outDir, LogDir: logDir, Tasks: tasks,
		Task: task, Merge: merge, CPUsPerTask: cpus, MemMB: MiB(mem), MergeMemMB: MiB(mergeMem), Options: options}, nil
}

// MiB is n bytes in MiB, rounded up.
func MiB(n int64) int64 { return (n + 1<<20 - 1) >> 20 }
