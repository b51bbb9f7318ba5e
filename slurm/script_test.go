package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func testJob(dir string) Job {
	return Job{Name: "t", Dir: dir, OutDir: dir, Tasks: 3, LogDir: filepath.Join(dir, "logs dir"),
		Task:        []string{"/bin/echo", "bench", "--models=gin,mlp", "a b", "it's", "$HOME"},
		Merge:       []string{"/bin/echo", "merge", "--log=" + filepath.Join(dir, "logs dir")},
		CPUsPerTask: 2, MemMB: 700, MergeMemMB: 300,
		Options: []string{"--partition=short", "--time=0:10:00"}}
}

// The scripts run as Slurm runs them: the array task with its
// SLURM_ARRAY_TASK_ID, every argument reaching the command as it was
// given (spaces, quotes and dollars included), the shard count fixed.
func TestScriptsRun(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	array, merge, err := testJob(dir).Scripts()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=1-3\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --mem=700M\n",
		"#SBATCH --partition=short\n", "#SBATCH --time=0:10:00\n", "#SBATCH --chdir=" + dir + "\n",
		"#SBATCH --output=" + filepath.Join(dir, "shard-%a.out") + "\n"} {
		if !strings.Contains(array, want) {
			t.Errorf("array script lacks %q:\n%s", want, array)
		}
	}
	if !strings.Contains(merge, "#SBATCH --mem=300M\n") || strings.Contains(merge, "--array") || strings.Contains(merge, "cpus-per-task") {
		t.Errorf("merge script:\n%s", merge)
	}
	ap, mp, err := testJob(dir).Write()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", ap)
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_COUNT=1")
	out, err := cmd.CombinedOutput()
	want := "bench --models=gin,mlp a b it's $HOME --shard 2/3 --log " + filepath.Join(dir, "logs dir", "shard-2.jsonl") + "\n"
	if err != nil || string(out) != want {
		t.Errorf("array task 2: %v, %q; want %q", err, out, want)
	}
	cmd = exec.Command("bash", ap)
	cmd.Env = slicesWithout(os.Environ(), "SLURM_ARRAY_TASK_ID=")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "not a Slurm array task") {
		t.Errorf("array script outside Slurm: %v, %s", err, out)
	}
	if out, err := exec.Command("bash", mp).CombinedOutput(); err != nil || string(out) != "merge --log="+filepath.Join(dir, "logs dir")+"\n" {
		t.Errorf("merge: %v, %q", err, out)
	}
}

func slicesWithout(env []string, prefix string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}

// An option given in Options replaces the one the sizes would set.
func TestScriptsOptionOverrides(t *testing.T) {
	j := testJob("/d")
	j.Options = []string{"--mem=4G", "-c 8"}
	array, _, err := j.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(array, "--mem=700M") || strings.Contains(array, "--cpus-per-task=2") ||
		!strings.Contains(array, "#SBATCH --mem=4G\n") || !strings.Contains(array, "#SBATCH -c 8\n") {
		t.Errorf("overrides:\n%s", array)
	}
}

func TestJobCheck(t *testing.T) {
	for _, c := range []struct {
		edit func(*Job)
		want string
	}{
		{func(j *Job) { j.Tasks = 0 }, "0 tasks"},
		{func(j *Job) { j.Dir = "rel" }, "must be absolute"},
		{func(j *Job) { j.Options = []string{"--array=1-9"} }, "the job's own"},
		{func(j *Job) { j.Options = []string{"--dependency=afterok:1"} }, "the job's own"},
		{func(j *Job) { j.Options = []string{"partition=x"} }, "want one option"},
		{func(j *Job) { j.Options = []string{"--time=1\n#SBATCH --x"} }, "want one option"},
		{func(j *Job) { j.Task = append(j.Task, "a\nb") }, "newline"},
	} {
		j := testJob("/d")
		c.edit(&j)
		if _, _, err := j.Scripts(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", j, err, c.want)
		}
	}
}

func TestParseJobID(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"12345\n", "12345"},
		{"77;cluster1\n", "77"},
		{"sbatch: warning: something\n42\n", "42"},
		{"", ""},
		{"Submitted batch job 9\n", ""},
	} {
		got, err := ParseJobID(c.in)
		if got != c.want || (err != nil) != (c.want == "") {
			t.Errorf("ParseJobID(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
