package data

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/prcaps/prcaps/internal/atomicfile"
	"github.com/prcaps/prcaps/internal/fileguard"
)

// Downloader fetches datasets from their canonical locations into a data
// root with the layout of DESIGN.md §7 (planetoid/ind.<name>.*,
// coauthor/ms_academic_cs.npz, tu/<NAME>/<NAME>_*.txt). The zero value is
// ready to use.
type Downloader struct {
	// Client does the requests; nil means http.DefaultClient.
	Client *http.Client
	// RewriteURL, if set, maps a canonical URL to the one requested
	// instead: a mirror, or a test server.
	RewriteURL func(canonical string) string
	// Progress, if set, receives one line per request and per file.
	Progress io.Writer
}

// dlMaxArchive bounds a downloaded TU zip; the largest in the collection is
// far smaller.
const dlMaxArchive = 1 << 30

// ChecksumError reports a file whose contents are not the expected ones.
type ChecksumError struct {
	File       string // path under the data root, or an archive's URL
	WantSHA256 string
	GotSHA256  string
	WantSize   int64 // 0 when only the checksum is pinned (an archive)
	GotSize    int64
}

// Error names the file and both checksums, so that a user can tell a
// truncated download (size differs) from a changed upstream file.
func (e *ChecksumError) Error() string {
	if e.WantSize == 0 {
		return fmt.Sprintf("%s: checksum mismatch: want sha256 %s, got %s (%d bytes)",
			e.File, e.WantSHA256, e.GotSHA256, e.GotSize)
	}
	return fmt.Sprintf("%s: checksum mismatch: want sha256 %s (%d bytes), got %s (%d bytes)",
		e.File, e.WantSHA256, e.WantSize, e.GotSHA256, e.GotSize)
}

// Download makes dataset (a name of DownloadableDatasets) complete and
// verified under root. Files already present with the expected checksum are
// left alone and not fetched. Each file is written to a temporary file in
// its final directory, verified, and only then renamed into place, so an
// interrupted or failed download never leaves a partial file under the
// final name. A file whose contents differ from the table is an error
// (*ChecksumError) naming the file and both checksums, except for Optional
// files, which are then skipped with a note on Progress. A dataset pinned
// by its archive alone (ogbn-arxiv) is fetched whole, the archive checked,
// and its members extracted as dlArchive describes.
func (d *Downloader) Download(ctx context.Context, dataset, root string) error {
	if a, ok := dlArchiveOf(dataset); ok {
		return d.dlArchive(ctx, a, root)
	}
	files, err := DatasetFiles(dataset)
	if err != nil {
		return err
	}
	return d.dlFetch(ctx, files, root)
}

func (d *Downloader) logf(format string, args ...any) {
	if d.Progress != nil {
		fmt.Fprintf(d.Progress, format+"\n", args...)
	}
}

// dlFetch fetches files (grouped by URL: one request per zip) into root.
func (d *Downloader) dlFetch(ctx context.Context, files []DatasetFile, root string) error {
	var urls []string
	byURL := map[string][]DatasetFile{}
	for _, f := range files {
		if _, seen := byURL[f.URL]; !seen {
			urls = append(urls, f.URL)
		}
		byURL[f.URL] = append(byURL[f.URL], f)
	}
	for _, u := range urls {
		var need []DatasetFile
		for _, f := range byURL[u] {
			st, err := dlCheck(root, f)
			if err != nil {
				return err
			}
			if st.OK() {
				d.logf("%-44s %s, skipped", f.Path, st.State)
				continue
			}
			need = append(need, f)
		}
		if len(need) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		if need[0].Member != "" {
			err = d.dlZip(ctx, u, need, root)
		} else {
			err = d.dlDirect(ctx, u, need[0], root)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// dlGet starts a GET of the canonical URL u; the caller closes the body.
func (d *Downloader) dlGet(ctx context.Context, u string) (io.ReadCloser, error) {
	target := u
	if d.RewriteURL != nil {
		target = d.RewriteURL(u)
	}
	d.logf("GET %s", target)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", target, err)
	}
	client := d.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", target, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("download %s: %s", target, resp.Status)
	}
	return resp.Body, nil
}

func (d *Downloader) dlDirect(ctx context.Context, u string, f DatasetFile, root string) error {
	body, err := d.dlGet(ctx, u)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	defer body.Close()
	st, err := dlWriteVerified(root, f, body)
	if err != nil {
		return err
	}
	d.logf("%-44s %s", f.Path, st)
	return nil
}

// dlScratch downloads the archive at the canonical URL u, at most limit
// bytes, into a scratch file under root (a zip is read from its directory
// at the end) and measures it. The caller Aborts the file, which is never
// committed: atomicfile names it by PID, so that the next download removes
// one that a killed process left.
func (d *Downloader) dlScratch(ctx context.Context, u, root string, limit int64) (*atomicfile.File, dlSummary, error) {
	body, err := d.dlGet(ctx, u)
	if err != nil {
		return nil, dlSummary{}, err
	}
	defer body.Close()
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, dlSummary{}, err
	}
	tmp, err := atomicfile.Create(filepath.Join(root, ".prcaps-download.zip"))
	if err != nil {
		return nil, dlSummary{}, err
	}
	s, err := dlSum(io.TeeReader(io.LimitReader(body, limit+1), tmp))
	switch {
	case err != nil:
		err = fmt.Errorf("download %s: %w", u, err)
	case s.size > limit:
		err = fmt.Errorf("download %s: archive larger than %d bytes", u, limit)
	}
	if err != nil {
		tmp.Abort()
		return nil, dlSummary{}, err
	}
	return tmp, s, nil
}

// dlZip downloads the archive at u and extracts the files in need.
func (d *Downloader) dlZip(ctx context.Context, u string, need []DatasetFile, root string) (err error) {
	tmp, s, err := d.dlScratch(ctx, u, root, dlMaxArchive)
	if err != nil {
		return fmt.Errorf("%s: %w", path.Dir(need[0].Path), err)
	}
	defer tmp.Abort()
	zr, err := zip.NewReader(tmp, s.size)
	if err != nil {
		return fmt.Errorf("download %s: not a zip archive: %w", u, err)
	}
	for _, f := range need {
		if err := ctx.Err(); err != nil {
			return err
		}
		zf := dlFindMember(zr, f.Member)
		if zf == nil {
			if f.Optional {
				d.logf("%-44s not in the archive, skipped (optional)", f.Path)
				continue
			}
			return fmt.Errorf("%s: %s has no member %s", f.Path, u, f.Member)
		}
		rc, err := zf.Open()
		if err != nil {
			return fmt.Errorf("%s: %s member %s: %w", f.Path, u, zf.Name, err)
		}
		st, err := dlWriteVerified(root, f, rc)
		rc.Close()
		var ce *ChecksumError
		if f.Optional && errors.As(err, &ce) {
			d.logf("%-44s differs from the reference copy, skipped (optional): %v", f.Path, err)
			continue
		}
		if err != nil {
			return err
		}
		d.logf("%-44s %s", f.Path, st)
	}
	return nil
}

// dlFindMember finds the archive member named name, or else the only member
// with the same base name (archives are not always rooted the same way).
func dlFindMember(zr *zip.Reader, name string) *zip.File {
	var byBase *zip.File
	for _, zf := range zr.File {
		if zf.Name == name {
			return zf
		}
		if path.Base(zf.Name) == path.Base(name) && !strings.HasSuffix(zf.Name, "/") {
			if byBase != nil {
				byBase = nil // ambiguous
				break
			}
			byBase = zf
		}
	}
	return byBase
}

// dlWriteVerified copies r to root/f.Path through a temporary file, and
// renames it into place only if it matches f.
func dlWriteVerified(root string, f DatasetFile, r io.Reader) (FileState, error) {
	var state FileState
	// One byte past the expected size is enough to tell a longer file.
	_, err := dlWriteFile(filepath.Join(root, filepath.FromSlash(f.Path)), f.Path, r, f.Size, func(sum dlSummary) error {
		if state = dlJudge(f, sum); !state.OK() {
			return &ChecksumError{File: f.Path, WantSHA256: f.SHA256, GotSHA256: sum.sha256,
				WantSize: f.Size, GotSize: sum.size}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return state, nil
}

// dlWriteFile copies at most limit+1 bytes of r to dst through a temporary
// file, measuring them, and renames it into place (mode 0644) if accept,
// given the measure, returns nil; otherwise nothing is left under dst's
// name. Through atomicfile: a target that is not a regular file is
// refused, and a killed download's temporary file is removed by the next
// one. A read error is prefixed with name unless it is empty.
func dlWriteFile(dst, name string, r io.Reader, limit int64, accept func(dlSummary) error) (dlSummary, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return dlSummary{}, err
	}
	tmp, err := atomicfile.Create(dst)
	if err != nil {
		return dlSummary{}, err
	}
	defer tmp.Abort() // nothing after Commit
	sum, err := dlSum(io.TeeReader(io.LimitReader(r, limit+1), tmp))
	if err != nil {
		if name != "" {
			err = fmt.Errorf("%s: %w", name, err)
		}
		return sum, err
	}
	if err := accept(sum); err != nil {
		return sum, err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return sum, err
	}
	return sum, tmp.Commit()
}

// dlSummary is what is measured of a file's contents.
type dlSummary struct {
	size   int64
	lines  int64
	sha256 string
}

func dlSum(r io.Reader) (dlSummary, error) {
	h := sha256.New()
	var s dlSummary
	buf := make([]byte, 256<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			h.Write(buf[:n])
			s.size += int64(n)
			s.lines += int64(bytes.Count(buf[:n], []byte{'\n'}))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return s, err
		}
	}
	s.sha256 = hex.EncodeToString(h.Sum(nil))
	return s, nil
}

// dlJudge compares measured contents with the table entry.
func dlJudge(f DatasetFile, s dlSummary) FileState {
	switch {
	case s.sha256 == f.SHA256 && s.size == f.Size:
		return FileOK
	case f.Lines > 0 && s.size == f.Size && s.lines == f.Lines:
		return FileOKSameSize
	}
	return FileMismatch
}

// FileState is the verdict on one dataset file on disk.
type FileState string

// The verdicts of Verify.
const (
	FileOK         FileState = "ok"                            // size and SHA256 as in the table
	FileOKSameSize FileState = "ok (same size and line count)" // DD_A.txt as in the official zip; see DatasetFile.Lines
	FileMissing    FileState = "missing"
	FileMismatch   FileState = "checksum mismatch"
	// The members of an archive-pinned dataset (DatasetFile.ArchiveSHA256)
	// are checked against the ArchiveManifest written when Download
	// extracted them; files unpacked by hand have none.
	FileUnverified   FileState = "present, not verified: no archive manifest"
	FileOtherArchive FileState = "present, not verified: manifest is of another archive"
)

// FileStatus is the state of one dataset file under a data root.
type FileStatus struct {
	File   DatasetFile
	State  FileState
	Size   int64  // bytes on disk; 0 if missing
	SHA256 string // of the file on disk; "" if missing
}

// OK reports whether the file is usable as it is.
func (s FileStatus) OK() bool { return s.State.OK() }

// OK reports whether the state is one of the acceptable ones.
func (s FileState) OK() bool { return s == FileOK || s == FileOKSameSize }

// Verify checks the files of dataset (a name of DownloadableDatasets) under
// root against the checksum table, reading each in full. Missing and
// mismatching files are reported in the statuses, not as errors; the error
// is for an unknown dataset or a file that cannot be read. A dataset is
// complete when every status is OK or is a missing Optional file. The
// members of an archive-pinned dataset are checked against the manifest
// that Download wrote beside them (ArchiveManifest); a malformed manifest
// is an error naming it.
func Verify(root, dataset string) ([]FileStatus, error) {
	if a, ok := dlArchiveOf(dataset); ok {
		return dlArchiveCheck(root, a)
	}
	files, err := DatasetFiles(dataset)
	if err != nil {
		return nil, err
	}
	out := make([]FileStatus, 0, len(files))
	for _, f := range files {
		st, err := dlCheck(root, f)
		if err != nil {
			return out, err
		}
		out = append(out, st)
	}
	return out, nil
}

// dlCheck measures root/f.Path.
func dlCheck(root string, f DatasetFile) (FileStatus, error) {
	p := filepath.Join(root, filepath.FromSlash(f.Path))
	fh, err := fileguard.Open(p, MaxFileBytes) // bounded: a device there would hash forever
	if errors.Is(err, fs.ErrNotExist) {
		return FileStatus{File: f, State: FileMissing}, nil
	}
	if err != nil {
		return FileStatus{File: f}, err
	}
	defer fh.Close()
	s, err := dlSum(fh)
	if err != nil {
		return FileStatus{File: f}, fileError(p, err)
	}
	return FileStatus{File: f, State: dlJudge(f, s), Size: s.size, SHA256: s.sha256}, nil
}
