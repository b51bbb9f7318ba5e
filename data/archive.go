package data

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prcaps/prcaps/internal/atomicfile"
	"github.com/prcaps/prcaps/internal/fileguard"
)

// ArchiveManifest names the file that Download writes in the directory of
// a dataset pinned by its archive alone (ogbn-arxiv: ogb/ogbn_arxiv/), last,
// once it has extracted the members: JSON giving the archive's URL and
// SHA256 and each member's path (relative to the directory), size and
// SHA256. The members have no published checksums of their own; this
// record, made from an archive whose checksum was checked, is what Verify
// and later downloads check them against.
const ArchiveManifest = "prcaps-manifest.json"

// dlMaxManifest bounds a manifest read: it holds a line or two per member.
const dlMaxManifest = 1 << 20

// errBadManifest is wrapped by the error for a manifest that cannot be
// read as one.
var errBadManifest = errors.New("not a prcaps archive manifest")

// dlArchiveSpec is a dataset pinned by its archive's checksum alone.
type dlArchiveSpec struct {
	name   string   // command-line name
	dir    string   // the dataset's directory under the data root, slash-separated
	url    string   // canonical location of the zip
	sha256 string   // the zip's SHA256, lower-case hex
	limit  int64    // most bytes downloaded (the zip's size is not pinned)
	prefix string   // the members' directory inside the zip, with its slash
	files  []string // the members extracted, relative to prefix and to dir
}

// archiveManifest is the content of an ArchiveManifest.
type archiveManifest struct {
	Archive archiveRef     `json:"archive"`
	Files   []manifestFile `json:"files"`
}

type archiveRef struct {
	URL    string `json:"url"`
	SHA256 string `json:"sha256"`
}

type manifestFile struct {
	Path   string `json:"path"` // relative to the dataset directory
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// datasetFiles lists a's files, sorted by path, with the size and SHA256
// that m records for them (m may be nil).
func (a dlArchiveSpec) datasetFiles(m *archiveManifest) []DatasetFile {
	files := make([]DatasetFile, 0, len(a.files))
	for _, rel := range a.files {
		f := DatasetFile{Path: a.dir + "/" + rel, URL: a.url, Member: a.prefix + rel, ArchiveSHA256: a.sha256}
		if m != nil {
			if i := slices.IndexFunc(m.Files, func(e manifestFile) bool { return e.Path == rel }); i >= 0 {
				f.Size, f.SHA256 = m.Files[i].Size, m.Files[i].SHA256
			}
		}
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b DatasetFile) int { return strings.Compare(a.Path, b.Path) })
	return files
}

// dlArchiveCheck measures a's files under root against its manifest. A
// present file is FileUnverified without a manifest (unpacked by hand) or
// without an entry in it, and FileOtherArchive when the manifest records
// an archive other than the pinned one. A malformed manifest is an error
// wrapping errBadManifest.
func dlArchiveCheck(root string, a dlArchiveSpec) ([]FileStatus, error) {
	m, err := dlReadManifest(root, a)
	if err != nil {
		return nil, err
	}
	trusted := m
	if m != nil && m.Archive.SHA256 != a.sha256 {
		trusted = nil
	}
	files := a.datasetFiles(trusted)
	out := make([]FileStatus, 0, len(files))
	for _, f := range files {
		st, err := dlCheck(root, f)
		if err != nil {
			return out, err
		}
		if st.State != FileMissing && f.SHA256 == "" {
			st.State = FileUnverified
			if m != nil && trusted == nil {
				st.State = FileOtherArchive
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// dlReadManifest reads a's manifest under root; nil if there is none.
func dlReadManifest(root string, a dlArchiveSpec) (*archiveManifest, error) {
	p := filepath.Join(root, filepath.FromSlash(a.dir), ArchiveManifest)
	b, err := fileguard.ReadFile(p, dlMaxManifest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fileError(p, err)
	}
	bad := func(format string, args ...any) error {
		return &FileError{File: p, Err: fmt.Errorf("%w: "+format, append([]any{errBadManifest}, args...)...)}
	}
	var m archiveManifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, bad("%v", err)
	}
	if !dlIsSHA256(m.Archive.SHA256) {
		return nil, bad("archive sha256 %q is not 64 hex digits", m.Archive.SHA256)
	}
	for _, f := range m.Files {
		if !fs.ValidPath(f.Path) || f.Size < 0 || !dlIsSHA256(f.SHA256) {
			return nil, bad("bad entry %+v", f)
		}
	}
	return &m, nil
}

func dlIsSHA256(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}

// dlArchive makes the archive-pinned dataset a complete and verified under
// root. When every file is present and matches the manifest, nothing is
// fetched. Otherwise the zip is downloaded whole into a scratch file under
// root (at most a.limit bytes) and its SHA256 checked (a mismatch is a
// *ChecksumError naming the archive's URL); only then is the dataset
// directory touched: the old manifest is removed, the members of a.files
// are extracted, each atomically and under MaxFileBytes (the bound under
// which Verify and LoadOGB read them), and the new manifest is written
// last. The scratch file never outlives the call, whatever the outcome.
func (d *Downloader) dlArchive(ctx context.Context, a dlArchiveSpec, root string) error {
	st, err := dlArchiveCheck(root, a)
	switch {
	case errors.Is(err, errBadManifest):
		d.logf("%v; fetching the archive again", err)
	case err != nil:
		return err
	case !slices.ContainsFunc(st, func(s FileStatus) bool { return !s.OK() }):
		for _, s := range st {
			d.logf("%-44s %s, skipped", s.File.Path, s.State)
		}
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	tmp, sum, err := d.dlScratch(ctx, a.url, root, a.limit)
	if err != nil {
		return fmt.Errorf("%s: %w", a.dir, err)
	}
	defer tmp.Abort()
	if sum.sha256 != a.sha256 {
		return &ChecksumError{File: a.url, WantSHA256: a.sha256, GotSHA256: sum.sha256, GotSize: sum.size}
	}
	d.logf("%s: sha256 ok (%d bytes)", a.url, sum.size)
	zr, err := zip.NewReader(tmp, sum.size)
	if err != nil {
		return fmt.Errorf("%s: not a zip archive: %w", a.url, err)
	}
	members, err := a.members(zr)
	if err != nil {
		return err
	}
	return d.dlExtract(ctx, a, members, root)
}

// members finds the zip members of a.files, in order. Every member name
// must be a relative path inside the archive: members are written under
// a's own names, never theirs, but an archive that names a file outside
// itself is not the published one, whatever its checksum was pinned as.
func (a dlArchiveSpec) members(zr *zip.Reader) ([]*zip.File, error) {
	byName := map[string]*zip.File{}
	twice := map[string]bool{}
	for _, zf := range zr.File {
		name := strings.TrimSuffix(zf.Name, "/") // a directory's entry
		if !fs.ValidPath(name) || name == "." || strings.Contains(name, `\`) {
			return nil, fmt.Errorf("%s: member %q is not a relative path inside the archive", a.url, zf.Name)
		}
		if byName[zf.Name] != nil {
			twice[zf.Name] = true
		}
		byName[zf.Name] = zf
	}
	out := make([]*zip.File, len(a.files))
	for i, rel := range a.files {
		name := a.prefix + rel
		zf := byName[name]
		switch {
		case zf == nil || zf.FileInfo().IsDir():
			return nil, fmt.Errorf("%s/%s: %s has no member %s", a.dir, rel, a.url, name)
		case twice[name]:
			return nil, fmt.Errorf("%s/%s: %s has the member %s more than once", a.dir, rel, a.url, name)
		}
		out[i] = zf
	}
	return out, nil
}

// dlExtract writes the members (those of a.files, in order) into a's
// directory under root, then the manifest. The old manifest goes first:
// should the extraction stop halfway, the files are then "not verified"
// and fetched again by the next download, never checked against a record
// of other contents.
func (d *Downloader) dlExtract(ctx context.Context, a dlArchiveSpec, members []*zip.File, root string) error {
	dir := filepath.Join(root, filepath.FromSlash(a.dir))
	mp := filepath.Join(dir, ArchiveManifest)
	if err := fileguard.CheckOutput(mp); err != nil {
		return err
	}
	if err := os.Remove(mp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	m := archiveManifest{Archive: archiveRef{URL: a.url, SHA256: a.sha256}}
	for i, rel := range a.files {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, err := dlExtractMember(filepath.Join(dir, filepath.FromSlash(rel)), members[i])
		if err != nil {
			return fmt.Errorf("%s/%s: %s member %s: %w", a.dir, rel, a.url, members[i].Name, err)
		}
		m.Files = append(m.Files, manifestFile{Path: rel, Size: s.size, SHA256: s.sha256})
		d.logf("%-44s extracted (%d bytes)", a.dir+"/"+rel, s.size)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(mp, append(b, '\n')); err != nil {
		return err
	}
	d.logf("%-44s written", a.dir+"/"+ArchiveManifest)
	return nil
}

// dlExtractMember copies zf to dst through a temporary file, at most
// MaxFileBytes, and measures it. zip checks the member's CRC-32 at its end.
func dlExtractMember(dst string, zf *zip.File) (dlSummary, error) {
	rc, err := zf.Open()
	if err != nil {
		return dlSummary{}, err
	}
	defer rc.Close()
	return dlWriteFile(dst, "", rc, MaxFileBytes, func(s dlSummary) error {
		if s.size > MaxFileBytes {
			return fmt.Errorf("larger than %d bytes", int64(MaxFileBytes))
		}
		return nil
	})
}
