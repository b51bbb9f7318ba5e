//go:build unix

package data

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prcaps/prcaps/internal/fileguard"
)

// Every dataset file is read under MaxFileBytes: a device is refused at
// once and a file over the bound fails before it is read (sparse, so the
// test writes nothing), each with a *FileError naming the file once.
func TestDatasetFilesBounded(t *testing.T) {
	dir := t.TempDir()
	edges := filepath.Join(dir, "e.csv")
	os.WriteFile(edges, []byte("0,1\n"), 0o644)
	labels := filepath.Join(dir, "y.csv")
	os.WriteFile(labels, []byte("0,0\n1,1\n"), 0o644)
	huge := filepath.Join(dir, "huge.csv")
	f, _ := os.Create(huge)
	f.Truncate(MaxFileBytes + 1)
	f.Close()
	check := func(what string, err error, file, want string) {
		t.Helper()
		var fe *FileError
		if !errors.As(err, &fe) || fe.File != file || !strings.Contains(err.Error(), want) || strings.Count(err.Error(), file) != 1 {
			t.Errorf("%s: %v; want a FileError for %s saying %q", what, err, file, want)
		}
	}
	for _, c := range []struct{ edges, features, labels, bad string }{
		{"/dev/zero", "", labels, "/dev/zero"}, {edges, "/dev/zero", labels, "/dev/zero"},
		{edges, "", "/dev/zero", "/dev/zero"}, {huge, "", labels, huge},
	} {
		_, err := LoadPlain(c.edges, c.features, c.labels)
		want := "is a character device"
		if c.bad == huge {
			want = "more than 2147483648 bytes (2 GiB)"
		}
		check("LoadPlain", err, c.bad, want)
	}
	// A TU directory whose file is a link to a device.
	tu := filepath.Join(dir, "E")
	os.Mkdir(tu, 0o755)
	os.Symlink("/dev/zero", filepath.Join(tu, "E_A.txt"))
	_, err := Load(tu, Options{})
	check("TU", err, filepath.Join(tu, "E_A.txt"), "is a character device")
	var ge *fileguard.Error
	if errors.As(err, &ge) {
		t.Errorf("the fileguard error is not unwrapped: %v", err)
	}
}
