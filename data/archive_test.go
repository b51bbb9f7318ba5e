package data

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func dlGzip(t *testing.T, text string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(text))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ogbTestMembers is a five-node graph in the layout of OGB's arxiv.zip,
// with the members LoadOGB does not read (mapping/, node_year, the edge
// count) and directory entries beside those it does.
func ogbTestMembers(t *testing.T) map[string][]byte {
	return map[string][]byte{
		"arxiv/":                           nil,
		"arxiv/raw/":                       nil,
		"arxiv/raw/edge.csv.gz":            dlGzip(t, "0,1\n1,2\n2,3\n3,4\n4,0\n1,0\n"),
		"arxiv/raw/node-feat.csv.gz":       dlGzip(t, "0.5,1\n1,0\n0,0\n-1,2\n3,3\n"),
		"arxiv/raw/node-label.csv.gz":      dlGzip(t, "0\n1\n2\n0\n1\n"),
		"arxiv/raw/num-node-list.csv.gz":   dlGzip(t, "5\n"),
		"arxiv/raw/num-edge-list.csv.gz":   dlGzip(t, "6\n"),
		"arxiv/raw/node_year.csv.gz":       dlGzip(t, "2015\n2016\n2018\n2019\n2020\n"),
		"arxiv/split/time/train.csv.gz":    dlGzip(t, "0\n1\n"),
		"arxiv/split/time/valid.csv.gz":    dlGzip(t, "2\n"),
		"arxiv/split/time/test.csv.gz":     dlGzip(t, "3\n4\n"),
		"arxiv/mapping/README.md":          []byte("mapping"),
		"arxiv/mapping/nodeidx2paperid.gz": dlGzip(t, "idx,paper\n"),
	}
}

// ogbTestSpec is the real ogbn-arxiv entry with the test archive's URL
// and checksum: the same directory and members.
func ogbTestSpec(t *testing.T, archive []byte) dlArchiveSpec {
	t.Helper()
	a, ok := dlArchiveOf("ogbn-arxiv")
	if !ok {
		t.Fatal("ogbn-arxiv is not archive-pinned")
	}
	a.url = "https://example.org/ogb/arxiv.zip"
	a.sha256 = dlTestSum(archive)
	return a
}

// dlFilesUnder lists the regular files under dir, slash-separated and
// relative to it.
func dlFilesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func TestDownloadArchive(t *testing.T) {
	archive := dlZipBytes(t, ogbTestMembers(t))
	a := ogbTestSpec(t, archive)
	srv := newDLServer(t, map[string][]byte{"/ogb/arxiv.zip": archive})
	root := t.TempDir()
	var log bytes.Buffer
	d := srv.downloader(&log)
	ctx := context.Background()
	if err := d.dlArchive(ctx, a, root); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "ogb", "ogbn_arxiv")
	want := []string{ArchiveManifest, "raw/edge.csv.gz", "raw/node-feat.csv.gz", "raw/node-label.csv.gz",
		"raw/num-node-list.csv.gz", "split/time/test.csv.gz", "split/time/train.csv.gz", "split/time/valid.csv.gz"}
	slices.Sort(want)
	if got := dlFilesUnder(t, dir); !slices.Equal(got, want) {
		t.Errorf("extracted %v, want %v", got, want)
	}
	dlNoTemp(t, root)
	members := ogbTestMembers(t)
	if got, _ := os.ReadFile(filepath.Join(dir, "raw", "edge.csv.gz")); !bytes.Equal(got, members["arxiv/raw/edge.csv.gz"]) {
		t.Error("edge.csv.gz differs from the archive's")
	}
	ds, err := LoadOGB(dir, "ogbn-arxiv", "")
	if err != nil {
		t.Fatal(err)
	}
	if ds.Graph.N != 5 || ds.Graph.UndirectedEdges() != 5 || !ds.Graph.HasArc(0, 4) || !ds.Graph.HasArc(4, 0) {
		t.Errorf("graph: %d nodes, %d edges", ds.Graph.N, ds.Graph.UndirectedEdges())
	}
	if ds.NumClasses != 3 || ds.X.Dense.Cols != 2 || ds.X.Dense.Data[0] != 0.5 {
		t.Errorf("%d classes, %d features", ds.NumClasses, ds.X.Dense.Cols)
	}
	if p := ds.Public; len(p.Train) != 2 || len(p.Val) != 1 || len(p.Test) != 2 || p.Val[0] != 2 {
		t.Errorf("split %+v", p)
	}

	check := func(want FileState) []FileStatus {
		t.Helper()
		st, err := dlArchiveCheck(root, a)
		if err != nil {
			t.Fatal(err)
		}
		if len(st) != len(a.files) {
			t.Fatalf("%d statuses for %d files", len(st), len(a.files))
		}
		for _, s := range st {
			if s.State != want {
				t.Errorf("%s: %s, want %s", s.File.Path, s.State, want)
			}
		}
		return st
	}
	st := check(FileOK)
	if f := st[0].File; f.SHA256 != st[0].SHA256 || f.Size <= 0 || f.ArchiveSHA256 != a.sha256 {
		t.Errorf("status carries %+v", f)
	}

	// Everything present and as recorded: no request.
	hits := srv.hits.Load()
	log.Reset()
	if err := d.dlArchive(ctx, a, root); err != nil || srv.hits.Load() != hits {
		t.Errorf("complete dataset refetched (%v)", err)
	}
	if !strings.Contains(log.String(), "ok, skipped") {
		t.Errorf("progress does not mention the skip:\n%s", log.String())
	}

	// A member changed after extraction is a mismatch, and the next
	// download restores it.
	edges := filepath.Join(dir, "raw", "edge.csv.gz")
	os.WriteFile(edges, dlGzip(t, "0,1\n"), 0o644)
	st, _ = dlArchiveCheck(root, a)
	for _, s := range st {
		if want := map[bool]FileState{true: FileMismatch, false: FileOK}[s.File.Path == "ogb/ogbn_arxiv/raw/edge.csv.gz"]; s.State != want {
			t.Errorf("after the edit, %s: %s, want %s", s.File.Path, s.State, want)
		}
	}
	if err := d.dlArchive(ctx, a, root); err != nil || srv.hits.Load() != hits+1 {
		t.Fatalf("changed member not fetched again (%v)", err)
	}
	check(FileOK)

	// Without the manifest (files unpacked by hand) the files are not
	// verified; with another archive's, neither; a missing file is missing.
	manifest := filepath.Join(dir, ArchiveManifest)
	good, _ := os.ReadFile(manifest)
	os.Remove(manifest)
	check(FileUnverified)
	other := bytes.Replace(good, []byte(a.sha256), []byte(strings.Repeat("0", 64)), 1)
	os.WriteFile(manifest, other, 0o644)
	check(FileOtherArchive)
	os.Remove(filepath.Join(dir, "split", "time", "test.csv.gz"))
	st, _ = dlArchiveCheck(root, a)
	if s := st[len(st)-3]; s.File.Path != "ogb/ogbn_arxiv/split/time/test.csv.gz" || s.State != FileMissing {
		t.Errorf("removed file: %s %s", s.File.Path, s.State)
	}

	// A manifest that is not one is an error naming it; a download
	// replaces it.
	for _, bad := range []string{"{", `{"archive":{"sha256":"xyz"}}`, `{"archive":{"sha256":"` + a.sha256 + `"},"files":[{"path":"../x","size":1,"sha256":"` + a.sha256 + `"}]}`, `{"extra":1}`} {
		os.WriteFile(manifest, []byte(bad), 0o644)
		if _, err := dlArchiveCheck(root, a); !errors.Is(err, errBadManifest) || !strings.Contains(err.Error(), manifest) {
			t.Errorf("manifest %s: %v", bad, err)
		}
	}
	if err := d.dlArchive(ctx, a, root); err != nil {
		t.Fatal(err)
	}
	check(FileOK)
	dlNoTemp(t, root)
}

// Every failure leaves the dataset directory as it was (here: absent) and
// no scratch file.
func TestDownloadArchiveFailures(t *testing.T) {
	members := ogbTestMembers(t)
	archive := dlZipBytes(t, members)
	without := func(name string) []byte {
		m := ogbTestMembers(t)
		delete(m, name)
		return dlZipBytes(t, m)
	}
	with := func(name string, b []byte) []byte {
		m := ogbTestMembers(t)
		m[name] = b
		return dlZipBytes(t, m)
	}
	for _, c := range []struct {
		name   string
		served []byte
		pinned []byte // whose checksum is pinned; nil: served's
		limit  int64
		want   string
	}{
		{"wrong checksum", with("arxiv/raw/node-label.csv.gz", dlGzip(t, "0\n1\n2\n0\n0\n")), archive, 0, "checksum mismatch"},
		{"truncated", archive[:len(archive)/2], archive, 0, "checksum mismatch"},
		{"too large", archive, nil, int64(len(archive) - 1), "larger than"},
		{"missing member", without("arxiv/split/time/valid.csv.gz"), nil, 0, "no member arxiv/split/time/valid.csv.gz"},
		{"escaping member", with("../x", []byte("x")), nil, 0, `member "../x" is not a relative path`},
		{"absolute member", with("/etc/x", []byte("x")), nil, 0, `member "/etc/x" is not a relative path`},
		{"not a zip", []byte("not a zip"), nil, 0, "not a zip archive"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pinned := c.pinned
			if pinned == nil {
				pinned = c.served
			}
			a := ogbTestSpec(t, pinned)
			if c.limit > 0 {
				a.limit = c.limit
			}
			srv := newDLServer(t, map[string][]byte{"/ogb/arxiv.zip": c.served})
			root := t.TempDir()
			err := srv.downloader(nil).dlArchive(context.Background(), a, root)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
			var ce *ChecksumError
			if isSum := errors.As(err, &ce); isSum != (c.want == "checksum mismatch") {
				t.Errorf("%v: *ChecksumError %v", err, isSum)
			} else if isSum && (ce.File != a.url || ce.WantSHA256 != a.sha256 || ce.GotSize != int64(len(c.served)) ||
				!strings.Contains(err.Error(), a.url) || strings.Contains(err.Error(), "(0 bytes)")) {
				t.Errorf("checksum error %+v: %v", ce, err)
			}
			if _, err := os.Stat(filepath.Join(root, "ogb")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("ogb/ was created (%v): %v", err, dlFilesUnder(t, root))
			}
			dlNoTemp(t, root)
		})
	}
}

// A response cut short (fewer bytes than its Content-Length) or cancelled
// midway is an error, and the scratch file is removed.
func TestDownloadArchiveInterrupted(t *testing.T) {
	archive := dlZipBytes(t, ogbTestMembers(t))
	a := ogbTestSpec(t, archive)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(archive)))
		w.Write(archive[:100])
		w.(http.Flusher).Flush()
		if r.URL.Query().Get("hang") != "" {
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	d := &Downloader{Client: srv.Client(), RewriteURL: func(string) string { return srv.URL + "/arxiv.zip" }}
	root := t.TempDir()
	if err := d.dlArchive(context.Background(), a, root); err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Errorf("short response: %v", err)
	}
	dlNoTemp(t, root)

	d.RewriteURL = func(string) string { return srv.URL + "/arxiv.zip?hang=1" }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := make(chan bool, 1)
	go func() {
		// Cancel once the scratch file exists.
		found := false
		for deadline := time.Now().Add(10 * time.Second); !found && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			tmp, _ := filepath.Glob(filepath.Join(root, "*prcaps-download.zip.tmp-*"))
			found = len(tmp) > 0
		}
		seen <- found
		cancel()
	}()
	if err := d.dlArchive(ctx, a, root); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if !<-seen {
		t.Error("no scratch file while the download hung")
	}
	dlNoTemp(t, root)
	if _, err := os.Stat(filepath.Join(root, "ogb")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ogb/ was created (%v)", err)
	}
}

// The pinned entry: OGB's published arxiv.zip, its members where the
// registry's ogbn-arxiv looks for them.
func TestArchivePinned(t *testing.T) {
	a, ok := dlArchiveOf("OGBN-ARXIV")
	if !ok {
		t.Fatal("ogbn-arxiv not found")
	}
	if a.url != "https://snap.stanford.edu/ogb/data/nodeproppred/arxiv.zip" || !dlIsSHA256(a.sha256) ||
		a.limit != dlMaxArchive || a.prefix != "arxiv/" {
		t.Errorf("entry %+v", a)
	}
	if in, _ := Lookup("ogbn-arxiv"); in.Path != a.dir {
		t.Errorf("extracts into %s, the registry reads %s", a.dir, in.Path)
	}
	files, err := DatasetFiles("ogbn-arxiv")
	if err != nil || len(files) != 7 {
		t.Fatalf("%d files, %v", len(files), err)
	}
	for _, f := range files {
		rel := strings.TrimPrefix(f.Path, "ogb/ogbn_arxiv/")
		if f.URL != a.url || f.ArchiveSHA256 != a.sha256 || f.Member != "arxiv/"+rel || f.SHA256 != "" || f.Size != 0 {
			t.Errorf("file %+v", f)
		}
	}
	for _, need := range []string{OGBEdges, OGBFeatures, OGBLabels, OGBNodes} {
		if !slices.Contains(a.files, need) {
			t.Errorf("%s is not extracted", need)
		}
	}
	names := DownloadableDatasets()
	if !slices.Contains(names, "ogbn-arxiv") || slices.Contains(names, "ogbn-products") {
		t.Errorf("downloadable: %v", names)
	}

	// Download and Verify take this path: the test archive is not the
	// published one, so the download fails on the pinned checksum.
	srv := newDLServer(t, map[string][]byte{"/ogb/data/nodeproppred/arxiv.zip": dlZipBytes(t, ogbTestMembers(t))})
	root := t.TempDir()
	var ce *ChecksumError
	if err := srv.downloader(nil).Download(context.Background(), "ogbn-arxiv", root); !errors.As(err, &ce) || ce.File != a.url || ce.WantSHA256 != a.sha256 {
		t.Errorf("download of the test archive as ogbn-arxiv: %v", err)
	}
	dlNoTemp(t, root)
	st, err := Verify(root, "ogbn-arxiv")
	if err != nil || len(st) != 7 || slices.ContainsFunc(st, func(s FileStatus) bool { return s.State != FileMissing }) {
		t.Errorf("verify of an empty root: %+v, %v", st, err)
	}
}
