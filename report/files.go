package report

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/prcaps/prcaps/internal/atomicfile"
)

// PrepareDir makes dir and checks that files can be written in it, so that
// a long run fails at its start, not when it has results to write.
func PrepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	probe, err := atomicfile.Create(filepath.Join(dir, "probe"))
	if err != nil {
		return fmt.Errorf("%s: cannot write there: %w", dir, err)
	}
	probe.Abort()
	return nil
}

// WriteFiles writes t as dir/<name>.md and dir/<name>.csv, and, when it
// has paired statistics, dir/<name>-stats.csv (WriteStatsCSV), each whole
// or not at all, and returns dir/<name>.
func (t *Table) WriteFiles(dir string) (string, error) {
	base := filepath.Join(dir, t.Name)
	if err := atomicfile.WriteFile(base+".md", []byte(t.Markdown())); err != nil {
		return base, err
	}
	if err := atomicfile.WriteFile(base+".csv", []byte(t.CSV())); err != nil {
		return base, err
	}
	if len(t.Stats) == 0 {
		return base, nil
	}
	return base, atomicfile.WriteFile(base+"-stats.csv", []byte(t.StatsCSV()))
}
