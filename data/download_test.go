package data

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func dlTestSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// dlServer serves the given bodies by URL path and counts requests.
type dlServer struct {
	*httptest.Server
	hits atomic.Int32
}

func newDLServer(t *testing.T, bodies map[string][]byte) *dlServer {
	s := &dlServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

// downloader rewrites every canonical URL to the test server, keeping the path.
func (s *dlServer) downloader(progress io.Writer) *Downloader {
	return &Downloader{
		Client: s.Client(),
		RewriteURL: func(u string) string {
			i := strings.Index(u, "://")
			j := strings.IndexByte(u[i+3:], '/')
			return s.URL + u[i+3+j:]
		},
		Progress: progress,
	}
}

func dlZipBytes(t *testing.T, members map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range members {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func dlNoTemp(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func TestDownloadDirect(t *testing.T) {
	content := []byte("planetoid bytes")
	f := DatasetFile{Path: "planetoid/ind.x.y", Size: int64(len(content)), SHA256: dlTestSum(content),
		URL: "https://example.org/data/ind.x.y"}
	srv := newDLServer(t, map[string][]byte{"/data/ind.x.y": content})
	root := t.TempDir()
	var log bytes.Buffer
	d := srv.downloader(&log)
	if err := d.dlFetch(context.Background(), []DatasetFile{f}, root); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "planetoid", "ind.x.y"))
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("file %q, %v", got, err)
	}
	dlNoTemp(t, root)
	// Present and correct: no request.
	if err := d.dlFetch(context.Background(), []DatasetFile{f}, root); err != nil {
		t.Fatal(err)
	}
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("%d requests, want 1 (second call should skip)", n)
	}
	if !strings.Contains(log.String(), "skipped") {
		t.Errorf("progress does not mention the skip:\n%s", log.String())
	}
	// A corrupt file on disk is fetched again and replaced, and the
	// temporary files of killed downloads (a dead PID) are removed.
	os.WriteFile(filepath.Join(root, "planetoid", "ind.x.y"), []byte("corrupt"), 0o644)
	os.WriteFile(filepath.Join(root, "planetoid", ".ind.x.y.tmp-2147483646-123"), []byte("half"), 0o600)
	if err := d.dlFetch(context.Background(), []DatasetFile{f}, root); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "planetoid", "ind.x.y")); !bytes.Equal(got, content) || srv.hits.Load() != 2 {
		t.Errorf("corrupt file not replaced: %q", got)
	}
	dlNoTemp(t, root)
	if st, err := os.Stat(filepath.Join(root, "planetoid", "ind.x.y")); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("downloaded file: %v, %v", st.Mode(), err)
	}
}

func TestDownloadChecksumMismatch(t *testing.T) {
	content := []byte("expected")
	f := DatasetFile{Path: "coauthor/x.npz", Size: int64(len(content)), SHA256: dlTestSum(content),
		URL: "https://example.org/x.npz"}
	for _, served := range [][]byte{[]byte("tampered"), []byte("expected plus more"), []byte("short")} {
		srv := newDLServer(t, map[string][]byte{"/x.npz": served})
		root := t.TempDir()
		err := srv.downloader(nil).dlFetch(context.Background(), []DatasetFile{f}, root)
		var ce *ChecksumError
		if !errors.As(err, &ce) {
			t.Fatalf("served %q: error %v is not a *ChecksumError", served, err)
		}
		if ce.File != f.Path || ce.WantSHA256 != f.SHA256 || ce.GotSHA256 == f.SHA256 {
			t.Errorf("checksum error %+v", ce)
		}
		msg := err.Error()
		if !strings.Contains(msg, f.Path) || !strings.Contains(msg, f.SHA256) || !strings.Contains(msg, ce.GotSHA256) {
			t.Errorf("message %q does not name file, expected and actual", msg)
		}
		if _, err := os.Stat(filepath.Join(root, "coauthor", "x.npz")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("mismatching file was written (%v)", err)
		}
		dlNoTemp(t, root)
	}
}

func TestDownload404(t *testing.T) {
	srv := newDLServer(t, nil)
	f := DatasetFile{Path: "planetoid/ind.cora.x", Size: 1, SHA256: "00", URL: "https://example.org/ind.cora.x"}
	err := srv.downloader(nil).dlFetch(context.Background(), []DatasetFile{f}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "ind.cora.x") {
		t.Errorf("error %v, want a 404 naming the file", err)
	}
	// Cancelled context: an error, not a hang.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := srv.downloader(nil).dlFetch(ctx, []DatasetFile{f}, t.TempDir()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestDownloadZip(t *testing.T) {
	a := []byte("1, 2\n2, 1\n3, 4\n4, 3\n")
	aOfficial := []byte("4, 3\n3, 4\n2, 1\n1, 2\n") // same arcs, other order
	ind := []byte("1\n1\n2\n2\n")
	readme := []byte("readme")
	files := []DatasetFile{
		{Path: "tu/T/T_A.txt", Size: int64(len(a)), SHA256: dlTestSum(a), URL: "https://example.org/T.zip", Member: "T/T_A.txt", Lines: 4},
		{Path: "tu/T/T_graph_indicator.txt", Size: int64(len(ind)), SHA256: dlTestSum(ind), URL: "https://example.org/T.zip", Member: "T/T_graph_indicator.txt"},
		{Path: "tu/T/README.txt", Size: 6, SHA256: dlTestSum([]byte("README")), URL: "https://example.org/T.zip", Member: "T/README.txt", Optional: true},
		{Path: "tu/T/T_edge_labels.txt", Size: 1, SHA256: "00", URL: "https://example.org/T.zip", Member: "T/T_edge_labels.txt", Optional: true},
	}
	zipped := dlZipBytes(t, map[string][]byte{
		"T/T_A.txt": aOfficial, "T/T_graph_indicator.txt": ind, "T/README.txt": readme, "T/T_node_labels.txt": []byte("x"),
	})
	srv := newDLServer(t, map[string][]byte{"/T.zip": zipped})
	root := t.TempDir()
	var log bytes.Buffer
	if err := srv.downloader(&log).dlFetch(context.Background(), files, root); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "tu", "T", "T_A.txt")); !bytes.Equal(got, aOfficial) {
		t.Errorf("T_A.txt = %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "tu", "T", "T_graph_indicator.txt")); !bytes.Equal(got, ind) {
		t.Errorf("indicator = %q", got)
	}
	for _, skipped := range []string{"README.txt", "T_edge_labels.txt", "T_node_labels.txt"} {
		if _, err := os.Stat(filepath.Join(root, "tu", "T", skipped)); err == nil {
			t.Errorf("%s was written", skipped)
		}
	}
	if !strings.Contains(log.String(), "same size and line count") {
		t.Errorf("progress does not note the reordered edge list:\n%s", log.String())
	}
	dlNoTemp(t, root)
	// A second run fetches the zip again only for the missing optional files.
	hits := srv.hits.Load()
	if err := srv.downloader(nil).dlFetch(context.Background(), files[:2], root); err != nil || srv.hits.Load() != hits {
		t.Errorf("complete dataset refetched (%v)", err)
	}

	// A required member missing from the archive, or different, is an error.
	bad := dlZipBytes(t, map[string][]byte{"T/T_A.txt": []byte("1, 2\n"), "T/T_graph_indicator.txt": ind})
	srv2 := newDLServer(t, map[string][]byte{"/T.zip": bad})
	var ce *ChecksumError
	if err := srv2.downloader(nil).dlFetch(context.Background(), files, t.TempDir()); !errors.As(err, &ce) || ce.File != "tu/T/T_A.txt" {
		t.Errorf("bad member: %v", err)
	}
	srv3 := newDLServer(t, map[string][]byte{"/T.zip": dlZipBytes(t, map[string][]byte{"T/T_A.txt": a})})
	if err := srv3.downloader(nil).dlFetch(context.Background(), files, t.TempDir()); err == nil || !strings.Contains(err.Error(), "T/T_graph_indicator.txt") {
		t.Errorf("missing member: %v", err)
	}
	srv4 := newDLServer(t, map[string][]byte{"/T.zip": []byte("not a zip")})
	if err := srv4.downloader(nil).dlFetch(context.Background(), files, t.TempDir()); err == nil || !strings.Contains(err.Error(), "zip") {
		t.Errorf("not a zip: %v", err)
	}
}

func TestDatasetFiles(t *testing.T) {
	total := 0
	for _, name := range DownloadableDatasets() {
		files, err := DatasetFiles(strings.ToUpper(name))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Errorf("%s: no files", name)
		}
		if _, ok := dlArchiveOf(name); ok {
			continue // TestArchivePinned
		}
		for _, f := range files {
			if len(f.SHA256) != 64 || f.Size <= 0 || !strings.HasPrefix(f.URL, "https://") || f.ArchiveSHA256 != "" {
				t.Errorf("%s: bad entry %+v", name, f)
			}
		}
		total += len(files)
	}
	if total != len(dlTable) {
		t.Errorf("datasets cover %d files, table has %d", total, len(dlTable))
	}
	cora, _ := DatasetFiles("cora")
	if len(cora) != 8 || cora[0].URL != "https://github.com/kimiyoung/planetoid/raw/master/data/ind.cora.allx" {
		t.Errorf("cora files %+v", cora)
	}
	pubmed, _ := DatasetFiles("pubmed")
	if len(pubmed) != 8 {
		t.Errorf("pubmed has %d files, want 8 (allx included)", len(pubmed))
	}
	dd, _ := DatasetFiles("dd")
	for _, f := range dd {
		if f.URL != "https://www.chrsmrrs.com/graphkerneldatasets/DD.zip" || f.Member != "DD/"+filepath.Base(f.Path) {
			t.Errorf("dd entry %+v", f)
		}
		if (f.Lines != 0) != (f.Path == "tu/DD/DD_A.txt") {
			t.Errorf("dd entry %s: Lines = %d", f.Path, f.Lines)
		}
	}
	if _, err := DatasetFiles("imagenet"); err == nil {
		t.Error("unknown dataset accepted")
	}
}

// TestVerifyReal checks the reference data directory against the table.
func TestVerifyReal(t *testing.T) {
	root := os.Getenv("PRCAPS_DATA")
	if root == "" {
		t.Skip("PRCAPS_DATA not set")
	}
	for _, name := range DownloadableDatasets() {
		st, err := Verify(root, name)
		if err != nil {
			t.Fatal(err)
		}
		a, archived := dlArchiveOf(name)
		if archived {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(a.dir))); err == nil {
				continue // present, from a download or unpacked by hand
			}
		}
		for _, s := range st {
			want := FileOK
			if s.File.Path == "planetoid/ind.pubmed.allx" || archived {
				want = FileMissing // see MANIFEST.md, "Not available here"; no OGB data
			}
			if s.State != want {
				t.Errorf("%s: %s, want %s", s.File.Path, s.State, want)
			}
		}
	}
}

// TestDownloadRealMUTAG downloads MUTAG and Cora from a local server that
// serves the reference files the way their publishers do (a zip for MUTAG).
func TestDownloadRealMUTAG(t *testing.T) {
	dataRoot := os.Getenv("PRCAPS_DATA")
	if dataRoot == "" {
		t.Skip("PRCAPS_DATA not set")
	}
	members := map[string][]byte{}
	mutag, _ := DatasetFiles("mutag")
	for _, f := range mutag {
		b, err := os.ReadFile(filepath.Join(dataRoot, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		members[f.Member] = b
	}
	bodies := map[string][]byte{"/graphkerneldatasets/MUTAG.zip": dlZipBytes(t, members)}
	cora, _ := DatasetFiles("cora")
	for _, f := range cora {
		b, err := os.ReadFile(filepath.Join(dataRoot, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		bodies["/kimiyoung/planetoid/raw/master/data/"+filepath.Base(f.Path)] = b
	}
	srv := newDLServer(t, bodies)
	root := t.TempDir()
	d := srv.downloader(nil)
	for _, name := range []string{"mutag", "Cora"} {
		if err := d.Download(context.Background(), name, root); err != nil {
			t.Fatal(err)
		}
		st, err := Verify(root, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range st {
			if s.State != FileOK {
				t.Errorf("%s: %s", s.File.Path, s.State)
			}
		}
	}
	if n := srv.hits.Load(); n != 9 {
		t.Errorf("%d requests, want 9 (one zip, eight Planetoid files)", n)
	}
	sub, _ := Dir(root).Sub("tu/MUTAG")
	if ds, err := LoadTU(sub, "MUTAG", TUOptions{}); err != nil || len(ds.Graphs) != 188 {
		t.Errorf("downloaded MUTAG does not load: %v", err)
	}
}
