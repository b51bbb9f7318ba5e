// Command samefolds checks that two sets of fold logs (prcaps bench
// --log) hold the same units with the same results, bit for bit, the
// measured seconds aside: an unsharded bench's log against the logs of
// its shards, say (docs/cluster.md).
//
//	go run ./tools/samefolds -a unsharded.jsonl -b 'jobs/t2/logs/*.jsonl'
//
// A unit is a fold or seed of a table cell (its record's cell key and
// fold). Every field of its result but "seconds" must be equal: the
// numbers are compared as the float64 values JSON's shortest round-trip
// text encodes, so equal means the same bits. It prints the units on
// each side and how many are identical, names every difference, and
// exits 1 if there is one (or a unit on one side only).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("samefolds", flag.ContinueOnError)
	fs.SetOutput(stderr)
	a := fs.String("a", "", "fold logs, comma-separated files or globs (required)")
	b := fs.String("b", "", "fold logs to compare with -a, the same forms (required)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *a == "" || *b == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "samefolds: give -a LOGS and -b LOGS, and nothing else")
		return 2
	}
	ua, na, err := units(*a)
	if err == nil {
		var ub map[string]unit
		var nb int
		if ub, nb, err = units(*b); err == nil {
			return compare(ua, ub, na, nb, stdout)
		}
	}
	fmt.Fprintln(stderr, "samefolds:", err)
	return 2
}

// unit is one record's result, without its seconds, and where it was.
type unit struct {
	label  string
	result map[string]any
	file   string
}

// units reads the records of the logs spec names by cell and fold.
func units(spec string) (map[string]unit, int, error) {
	var files []string
	for _, item := range strings.Split(spec, ",") {
		m, err := filepath.Glob(strings.TrimSpace(item))
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", item, err)
		}
		if len(m) == 0 {
			return nil, 0, fmt.Errorf("%s: no such file", item)
		}
		slices.Sort(m)
		files = append(files, m...)
	}
	out := map[string]unit{}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			return nil, 0, err
		}
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for line := 1; sc.Scan(); line++ {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			var rec struct {
				Cell   string         `json:"cell"`
				Label  string         `json:"label"`
				Fold   *int           `json:"fold"`
				Result map[string]any `json:"result"`
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || rec.Cell == "" || rec.Fold == nil || rec.Result == nil {
				r.Close()
				return nil, 0, fmt.Errorf("%s:%d: not a fold record", f, line)
			}
			delete(rec.Result, "seconds")
			out[fmt.Sprintf("%s fold %d", rec.Cell, *rec.Fold)] = unit{fmt.Sprintf("%s fold %d", rec.Label, *rec.Fold), rec.Result, f}
		}
		err = sc.Err()
		r.Close()
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", f, err)
		}
	}
	return out, len(files), nil
}

// compare prints how ua and ub agree and returns the exit status.
func compare(ua, ub map[string]unit, na, nb int, w io.Writer) int {
	same := 0
	var bad []string
	for _, k := range slices.Sorted(maps.Keys(ua)) {
		x := ua[k]
		y, ok := ub[k]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("%s (%s): only in -a", x.label, x.file))
		case !reflect.DeepEqual(x.result, y.result):
			bad = append(bad, fmt.Sprintf("%s: %v (%s) against %v (%s)", x.label, x.result, x.file, y.result, y.file))
		default:
			same++
		}
	}
	for _, k := range slices.Sorted(maps.Keys(ub)) {
		if _, ok := ua[k]; !ok {
			bad = append(bad, fmt.Sprintf("%s (%s): only in -b", ub[k].label, ub[k].file))
		}
	}
	fmt.Fprintf(w, "-a: %d units in %d file(s); -b: %d units in %d file(s); identical but for the seconds: %d\n", len(ua), na, len(ub), nb, same)
	for _, s := range bad {
		fmt.Fprintln(w, "  differ:", s)
	}
	if len(bad) > 0 {
		return 1
	}
	return 0
}
