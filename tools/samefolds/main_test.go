package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSameFolds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rec := func(cell string, fold int, acc, secs string) string {
		return `{"cell":"` + cell + `","label":"t2: X on Y","fold":` + string(rune('0'+fold)) +
			`,"result":{"seed":0,"test_acc":` + acc + `,"seconds":` + secs + `}}` + "\n"
	}
	all := write("all.jsonl", rec("c1", 0, "0.75", "1.5")+rec("c1", 1, "0.5", "2")+rec("c2", 0, "0.8333333333333334", "9"))
	write("s-1.jsonl", rec("c1", 0, "0.75", "3.25")+rec("c2", 0, "0.8333333333333334", "1"))
	write("s-2.jsonl", rec("c1", 1, "0.5", "0.1"))
	write("t-1.jsonl", rec("c1", 0, "0.75", "3.25")+rec("c2", 0, "0.8333333333333333", "1"))
	for _, c := range []struct {
		b    string
		code int
		want string
	}{
		{filepath.Join(dir, "s-*.jsonl"), 0, "-a: 3 units in 1 file(s); -b: 3 units in 2 file(s); identical but for the seconds: 3"},
		{filepath.Join(dir, "s-1.jsonl"), 1, "t2: X on Y fold 1 (" + all + "): only in -a"},
		{filepath.Join(dir, "t-1.jsonl") + "," + filepath.Join(dir, "s-2.jsonl"), 1, "0.8333333333333334"},
	} {
		var out, errOut bytes.Buffer
		code := run([]string{"-a", all, "-b", c.b}, &out, &errOut)
		if code != c.code || !strings.Contains(out.String(), c.want) {
			t.Errorf("-b %s: exit %d, %s%s; want %d and %q", c.b, code, out.String(), errOut.String(), c.code, c.want)
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"-a", write("bad.jsonl", "{}\n"), "-b", all}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "bad.jsonl:1: not a fold record") {
		t.Errorf("malformed log: exit %d, %s", code, errOut.String())
	}
}
