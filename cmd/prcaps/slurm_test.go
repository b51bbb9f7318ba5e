package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// slurmUp skips the test unless a Slurm cluster answers here: sbatch on
// $PATH and a node that takes jobs (tools/slurm-up.sh brings one up; CI
// runs it).
func slurmUp(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("sbatch"); err != nil {
		t.Skip("sbatch is not on $PATH: no Slurm here (tools/slurm-up.sh installs and starts a one-node cluster, as .ci/run does)")
	}
	out, err := exec.Command("sinfo", "-h", "-o", "%T").Output()
	if err != nil || !regexp.MustCompile(`(?m)^(idle|mixed|allocated)`).Match(out) {
		t.Skipf("sbatch is here but no Slurm node takes jobs (sinfo: %v, %q): run tools/slurm-up.sh", err, out)
	}
}

// runBin runs the binary the Slurm jobs run, so that the unsharded side of
// a comparison uses the same kernels as the shards: an in-process run
// would use the test binary's, which differ under -tags purego (the Go
// kernels round some sums in another order) while `go build` here builds
// the default set.
func runBin(bin string, args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		code = -1
		if x, ok := err.(*exec.ExitError); ok {
			code = x.ExitCode()
		}
		e.WriteString(err.Error())
	}
	return code, o.String(), e.String()
}

// TestSlurmSubmit submits small sharded benches (Table 2: GIN-0 and the
// MLP on MUTAG, 3 folds of 2 epochs; Table 3: GCN and SGC on Cora, 3
// seeds of 2 epochs) to the real Slurm cluster with --slurm 3 --submit,
// waits for the merge jobs, and compares their tables with the unsharded
// bench's: equal but for the runtimes.
func TestSlurmSubmit(t *testing.T) {
	slurmUp(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "prcaps")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	benches := [][]string{
		{"--suite", "graph", "--dataset", "mutag", "--models", "gin,mlp", "--folds", "3"},
		{"--suite", "node", "--dataset", "cora", "--models", "gcn,sgc", "--seeds", "3"},
	}
	var jobs []string
	var mergeOut, want []string
	for i, c := range benches {
		args := append([]string{"bench", "--data", "", "--quiet", "--epochs", "2", "--parallel", "1"}, c...)
		code, md, errOut := runBin(bin, args...)
		if code != 0 {
			t.Fatalf("unsharded %v: exit %d: %s", c, code, errOut)
		}
		want = append(want, md)
		sdir := filepath.Join(dir, fmt.Sprintf("slurm-%d", i))
		cmd := exec.Command(bin, append(args, "--slurm", "3", "--slurm-dir", sdir, "--submit", "--sbatch", "--time=0:10:00")...)
		out, err := cmd.CombinedOutput()
		m := regexp.MustCompile(`submitted array job (\d+) .* and merge job (\d+) `).FindSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("--slurm 3 --submit: %v\n%s", err, out)
		}
		jobs = append(jobs, string(m[1]), string(m[2]))
		mergeOut = append(mergeOut, filepath.Join(sdir, "merge.out"))
	}
	waitJobs(t, jobs, 5*time.Minute)
	for i := range benches {
		id := jobs[2*i+1]
		out, _ := exec.Command("scontrol", "show", "job", id).Output()
		if !strings.Contains(string(out), "JobState=COMPLETED") {
			t.Errorf("merge job %s did not complete:\n%s", id, out)
		}
		got, err := os.ReadFile(mergeOut[i])
		if err != nil {
			t.Fatal(err)
		}
		if withoutRuntimes(string(got)) != withoutRuntimes(want[i]) {
			t.Errorf("%v: merge job's table\n%s\nwant the unsharded\n%s", benches[i], got, want[i])
		}
	}
}

// waitJobs waits until squeue lists none of jobs, at most limit; then it
// cancels them and fails.
func waitJobs(t *testing.T, jobs []string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		out, err := exec.Command("squeue", "-h", "-j", strings.Join(jobs, ","), "-o", "%i %T %r").Output()
		if err != nil {
			t.Fatalf("squeue: %v", err)
		}
		if len(strings.TrimSpace(string(out))) == 0 {
			return
		}
		if time.Now().After(deadline) {
			exec.Command("scancel", jobs...).Run()
			t.Fatalf("jobs %v still queued or running after %v:\n%s", jobs, limit, out)
		}
		time.Sleep(time.Second)
	}
}

// jobState is the JobState scontrol reports for job.
func jobState(job string) string {
	out, _ := exec.Command("scontrol", "show", "job", job).Output()
	m := regexp.MustCompile(`JobState=(\S+)`).FindSubmatch(out)
	if m == nil {
		return "unknown"
	}
	return string(m[1])
}

// TestSlurmTaskRerun makes task 2 of a 3-task array fail (its log path is
// a directory), checks that the merge job is cancelled, then follows the
// rerun command prcaps printed: task 2 alone, then the merge, which
// prints the unsharded table.
func TestSlurmTaskRerun(t *testing.T) {
	slurmUp(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "prcaps")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	args := []string{"bench", "--data", "", "--quiet", "--epochs", "2", "--parallel", "1",
		"--suite", "graph", "--dataset", "mutag", "--models", "mlp", "--folds", "3"}
	code, want, errOut := runBin(bin, args...)
	if code != 0 {
		t.Fatalf("unsharded: exit %d: %s", code, errOut)
	}
	sdir := filepath.Join(dir, "jobs")
	blocker := filepath.Join(sdir, "logs", "shard-2.jsonl")
	if err := os.MkdirAll(blocker, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, append(args, "--slurm", "3", "--slurm-dir", sdir, "--submit")...).CombinedOutput()
	m := regexp.MustCompile(`submitted array job (\d+) .* and merge job (\d+) `).FindSubmatch(out)
	rerun := regexp.MustCompile(`(?m)resumes from its log: (.*)$`).FindSubmatch(out)
	if err != nil || m == nil || rerun == nil {
		t.Fatalf("--slurm 3 --submit: %v\n%s", err, out)
	}
	array, merge := string(m[1]), string(m[2])
	waitJobs(t, []string{array, merge}, 5*time.Minute)
	if s := jobState(array + "_2"); s != "FAILED" {
		t.Errorf("task 2: %s, want FAILED", s)
	}
	if s := jobState(array + "_1"); s != "COMPLETED" {
		t.Errorf("task 1: %s, want COMPLETED", s)
	}
	if s := jobState(merge); s == "COMPLETED" {
		t.Errorf("merge job ran after a failed task")
	}
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	cmd := strings.ReplaceAll(string(rerun[1]), "<I>", "2")
	out, err = exec.Command("bash", "-c", cmd).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	id := regexp.MustCompile(`(\d+)\s*$`).FindSubmatch(out) // "Submitted batch job N"
	if id == nil {
		t.Fatalf("%s: no job id in %q", cmd, out)
	}
	merge2 := string(id[1])
	waitJobs(t, []string{merge2}, 5*time.Minute)
	if s := jobState(merge2); s != "COMPLETED" {
		t.Fatalf("rerun's merge job %s: %s", merge2, s)
	}
	got, err := os.ReadFile(filepath.Join(sdir, "merge.out"))
	if err != nil {
		t.Fatal(err)
	}
	if withoutRuntimes(string(got)) != withoutRuntimes(want) {
		t.Errorf("merge after the rerun:\n%s\nwant the unsharded\n%s", got, want)
	}
}

// TestSlurmSubmitSelect submits a small fair selection (MUTAG, 3 outer
// folds of 2 epochs, grids of two points for GIN-0 and the MLP: 6 units of
// 2 trials and 3 retrains) to the real Slurm cluster with --slurm 3
// --submit, waits for the merge job, and compares its t2-selected table
// with the unsharded --select bench's: equal but for the Cost cells.
func TestSlurmSubmitSelect(t *testing.T) {
	slurmUp(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "prcaps")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	gin := filepath.Join(dir, "gin-graph.json")
	mlp := filepath.Join(dir, "mlp-graph.json")
	if err := os.WriteFile(gin, []byte(`{"model": "gin", "options": {"hidden": [16, 32]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mlp, []byte(`{"model": "mlp", "options": {"hidden": [8, 64]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"bench", "--data", "", "--quiet", "--epochs", "2", "--parallel", "1", "--suite", "graph",
		"--dataset", "mutag", "--folds", "3", "--select", gin + "," + mlp}
	code, want, errOut := runBin(bin, args...)
	if code != 0 || !strings.Contains(want, "point chosen per fold") {
		t.Fatalf("unsharded --select: exit %d\n%s%s", code, want, errOut)
	}
	sdir := filepath.Join(dir, "jobs")
	out, err := exec.Command(bin, append(args, "--slurm", "3", "--slurm-dir", sdir, "--submit", "--sbatch", "--time=0:10:00")...).CombinedOutput()
	m := regexp.MustCompile(`submitted array job (\d+) .* and merge job (\d+) `).FindSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("--select --slurm 3 --submit: %v\n%s", err, out)
	}
	array, merge := string(m[1]), string(m[2])
	waitJobs(t, []string{array, merge}, 5*time.Minute)
	for i := 1; i <= 3; i++ {
		if s := jobState(fmt.Sprintf("%s_%d", array, i)); s != "COMPLETED" {
			t.Errorf("task %d: %s, want COMPLETED", i, s)
		}
	}
	if s := jobState(merge); s != "COMPLETED" {
		t.Fatalf("merge job %s: %s", merge, s)
	}
	got, err := os.ReadFile(filepath.Join(sdir, "merge.out"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "point chosen per fold") || withoutCost(string(got)) != withoutCost(want) {
		t.Errorf("merge job's table\n%s\nwant the unsharded\n%s", got, want)
	}
}
