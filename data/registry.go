package data

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Task is what a dataset's labels are attached to.
type Task int

const (
	// NodeTask datasets classify the nodes of one graph.
	NodeTask Task = iota
	// GraphTask datasets classify whole graphs.
	GraphTask
)

func (t Task) String() string {
	if t == GraphTask {
		return "graph"
	}
	return "node"
}

// ParseTask is the Task whose String is name ("node" or "graph").
func ParseTask(name string) (Task, error) {
	switch name {
	case "node":
		return NodeTask, nil
	case "graph":
		return GraphTask, nil
	}
	return NodeTask, fmt.Errorf("unknown task %q", name)
}

// Info describes a dataset the registry knows by name.
type Info struct {
	Name     string // command-line name, lower case
	Display  string // as papers write it
	Task     Task
	Format   string // "planetoid", "npz", "tu" or "ogb"
	Path     string // file or directory under the data root
	Embedded bool   // shipped inside the binary
}

// Known lists the benchmark datasets of the paper, in the order of its tables.
func Known() []Info {
	return []Info{
		{"cora", "Cora", NodeTask, "planetoid", "planetoid", true},
		{"citeseer", "CiteSeer", NodeTask, "planetoid", "planetoid", false},
		{"pubmed", "PubMed", NodeTask, "planetoid", "planetoid", false},
		{"cs", "Coauthor CS", NodeTask, "npz", "coauthor/ms_academic_cs.npz", false},
		{"mutag", "MUTAG", GraphTask, "tu", "tu/MUTAG", true},
		{"nci1", "NCI1", GraphTask, "tu", "tu/NCI1", false},
		{"nci109", "NCI109", GraphTask, "tu", "tu/NCI109", false},
		{"dd", "DD", GraphTask, "tu", "tu/DD", false},
		{"proteins", "PROTEINS", GraphTask, "tu", "tu/PROTEINS", false},
		// Past the paper's tables: OGB's raw layout (LoadOGB), for
		// neighbour-sampled training.
		{"ogbn-arxiv", "ogbn-arxiv", NodeTask, "ogb", "ogb/ogbn_arxiv", false},
		{"ogbn-products", "ogbn-products", NodeTask, "ogb", "ogb/ogbn_products", false},
	}
}

// Lookup returns the Info of a known dataset (case-insensitive).
func Lookup(name string) (Info, bool) {
	name = strings.ToLower(name)
	for _, in := range Known() {
		if in.Name == name {
			return in, true
		}
	}
	return Info{}, false
}

// Dataset is a loaded dataset of either task; exactly one of Node and Graph is set.
type Dataset struct {
	Name  string
	Task  Task
	Node  *NodeDataset
	Graph *GraphDataset
	// From says where the files were read: a directory or "embedded:".
	From string
}

// Options say where and how Load reads a dataset.
type Options struct {
	// Root is the data directory (layout of DESIGN §7: planetoid/, coauthor/,
	// npz/, tu/<NAME>/). Empty means the embedded datasets only; pass
	// DefaultRoot() for the usual lookup ($PRCAPS_DATA, then the user cache).
	Root string
	// NodeAttr appends TU node attributes to the node features.
	NodeAttr bool
	// Encoding, if non-nil, builds a TU set's node features with this
	// encoding (a trained model's) instead of deriving it (TUOptions).
	Encoding *NodeEncoding
}

// EnvVar names the environment variable holding the default data root.
const EnvVar = "PRCAPS_DATA"

// DefaultRoot is $PRCAPS_DATA, else the per-user cache directory
// (e.g. ~/.cache/prcaps/data) if it exists, else "" (embedded data only).
func DefaultRoot() string {
	if r := os.Getenv(EnvVar); r != "" {
		return r
	}
	if c := CacheRoot(); c != "" {
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c
		}
	}
	return ""
}

// ErrNoRoot is wrapped by CheckRoot's error: a data directory that does
// not exist.
var ErrNoRoot = errors.New("no such directory")

// CheckRoot reports a data directory root that is not an existing
// directory (nil for "", which means the embedded datasets only). Load
// itself falls back to the embedded Cora and MUTAG when a root lacks them,
// so a caller that takes root from its user checks it first, rather than
// train on an embedded copy of a dataset it meant to read from disk.
func CheckRoot(root string) error {
	if root == "" {
		return nil
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return fmt.Errorf("%s: %w", root, ErrNoRoot)
	}
	return nil
}

// CacheRoot is the per-user directory that `prcaps datasets download`
// writes to by default, or "" if the platform has none.
func CacheRoot() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "prcaps", "data")
}

// ErrNeedsData is wrapped by Load's error when a dataset is neither embedded
// nor present under the data root.
var ErrNeedsData = errors.New("dataset files not found")

// Load reads a dataset by name: one of Known(), any TU dataset under
// <root>/tu/<NAME>/, any gnn-benchmark file <root>/npz/<name>.npz, a path to a
// .npz file, or a path to a TU directory. Cora and MUTAG fall back to the
// copies embedded in the binary when the root does not hold them.
func Load(name string, opt Options) (*Dataset, error) {
	root := opt.Root
	if looksLikePath(name) {
		return loadPath(name, opt)
	}
	in, known := Lookup(name)
	if !known {
		return loadByName(name, root, opt)
	}
	src := Source{}
	if root != "" && Dir(root).Exists(in.Path) {
		src = Dir(root)
	} else if in.Embedded {
		src = Embedded()
	} else {
		return nil, needsData(in, root)
	}
	return loadInfo(in, src, opt)
}

func looksLikePath(name string) bool {
	return strings.ContainsAny(name, `/\`) || strings.HasSuffix(strings.ToLower(name), ".npz")
}

func needsData(in Info, root string) error {
	where := "no data directory is set"
	if root != "" {
		where = fmt.Sprintf("%s not found", filepath.Join(root, filepath.FromSlash(in.Path)))
	}
	if in.Format == "ogb" {
		archive := strings.TrimPrefix(in.Name, "ogbn-")
		download := ""
		if _, ok := dlArchiveOf(in.Name); ok {
			download = fmt.Sprintf(" (`prcaps datasets download %s` does this, checking the archive's sha256)", in.Name)
		}
		return fmt.Errorf("dataset %s: %w (%s); unpack the %s/ folder of OGB's %s.zip (snap.stanford.edu/ogb/data/nodeproppred/%s.zip) as %s under a data directory, so that %s/%s exists%s, and pass --data DIR or set %s",
			in.Name, ErrNeedsData, where, archive, archive, archive, in.Path, in.Path, OGBEdges, download, EnvVar)
	}
	return fmt.Errorf("dataset %s: %w (%s); pass --data DIR or set %s to a directory laid out as planetoid/, coauthor/, tu/<NAME>/, or run `prcaps datasets download %s`",
		in.Name, ErrNeedsData, where, EnvVar, in.Name)
}

func loadInfo(in Info, src Source, opt Options) (*Dataset, error) {
	ds := &Dataset{Name: in.Display, Task: in.Task, From: src.Root}
	switch in.Format {
	case "planetoid":
		sub, err := src.Sub(in.Path)
		if err != nil {
			return nil, err
		}
		if ds.Node, err = LoadPlanetoid(sub, in.Name); err != nil {
			return nil, err
		}
	case "npz":
		dir, file := filepath.Split(filepath.FromSlash(in.Path))
		sub, err := src.Sub(filepath.ToSlash(filepath.Clean(dir)))
		if err != nil {
			return nil, err
		}
		if ds.Node, err = LoadNPZ(sub, file, in.Display); err != nil {
			return nil, err
		}
	case "ogb":
		var err error
		if ds.Node, err = LoadOGB(src.Path(in.Path), in.Display, ""); err != nil {
			return nil, err
		}
	case "tu":
		sub, err := src.Sub(in.Path)
		if err != nil {
			return nil, err
		}
		if ds.Graph, err = LoadTU(sub, filepath.Base(in.Path), TUOptions{NodeAttr: opt.NodeAttr, Encoding: opt.Encoding}); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("data: unknown format %q", in.Format)
	}
	if ds.Node != nil {
		ds.Node.Name = in.Display
	} else {
		ds.Graph.Name = in.Display
	}
	return ds, nil
}

// loadByName resolves an unlisted name as a TU directory or an npz file under root.
func loadByName(name, root string, opt Options) (*Dataset, error) {
	in, src, err := findByName(name, root)
	if err != nil {
		return nil, err
	}
	return loadInfo(in, src, opt)
}

// findByName finds an unlisted name under root: a TU directory tu/<NAME>
// or an npz file npz/<name>.npz, either matched case-insensitively.
func findByName(name, root string) (Info, Source, error) {
	if root == "" {
		return Info{}, Source{}, fmt.Errorf("dataset %s: %w: it is not a built-in dataset, and no data directory is set (pass --data DIR or set %s)", name, ErrNeedsData, EnvVar)
	}
	src := Dir(root)
	if tu, ok := findTU(src, name); ok {
		return Info{Name: strings.ToLower(name), Display: tu, Task: GraphTask, Format: "tu", Path: "tu/" + tu}, src, nil
	}
	if file, ok := findNPZ(src, name); ok {
		return Info{Name: strings.ToLower(name), Display: strings.TrimSuffix(file, filepath.Ext(file)), Task: NodeTask, Format: "npz", Path: "npz/" + file}, src, nil
	}
	npz := "npz/" + strings.ToLower(name) + ".npz"
	return Info{}, Source{}, fmt.Errorf("dataset %s: %w: looked for %s and %s; known datasets: %s",
		name, ErrNeedsData, filepath.Join(root, "tu", strings.ToUpper(name)), filepath.Join(root, filepath.FromSlash(npz)), strings.Join(KnownNames(), ", "))
}

// Find reports whether Load can resolve name under root without loading
// it: a known dataset (whose missing files Load then names), a TU directory
// or npz file under root, or an existing path. The error says where it
// looked.
func Find(name, root string) error {
	if looksLikePath(name) {
		if _, err := os.Stat(name); err != nil {
			return fmt.Errorf("dataset %s: %w", name, err)
		}
		return nil
	}
	if _, known := Lookup(name); known {
		return nil
	}
	_, _, err := findByName(name, root)
	return err
}

// findNPZ finds the file npz/<name>.npz, the name matched exactly or else
// case-insensitively (Amazon-Photo.npz by amazon-photo).
func findNPZ(src Source, name string) (string, bool) {
	if src.Exists("npz/" + name + ".npz") {
		return name + ".npz", true
	}
	entries, err := fs.ReadDir(src.FS, "npz")
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(e.Name(), name+".npz") {
			return e.Name(), true
		}
	}
	return "", false
}

// findTU finds the directory tu/<NAME> matching name case-insensitively.
func findTU(src Source, name string) (string, bool) {
	entries, err := fs.ReadDir(src.FS, "tu")
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		if e.IsDir() && strings.EqualFold(e.Name(), name) {
			return e.Name(), true
		}
	}
	return "", false
}

// loadPath loads a dataset given as a path: a .npz file, a directory in
// the .npy CSR layout (LoadNPYDir, memory-mapped where possible) or OGB's
// raw layout (LoadOGB), or a TU directory (holding <NAME>_A.txt, NAME
// being the directory's base name).
func loadPath(p string, opt Options) (*Dataset, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, &FileError{File: p, Err: ErrMissing}
	}
	if !st.IsDir() {
		if !strings.HasSuffix(strings.ToLower(p), ".npz") {
			return nil, fmt.Errorf("%s: not a .npz file or a TU directory", p)
		}
		base := filepath.Base(p)
		name := strings.TrimSuffix(base, filepath.Ext(base))
		d, err := LoadNPZ(Dir(filepath.Dir(p)), base, name)
		if err != nil {
			return nil, err
		}
		return &Dataset{Name: name, Task: NodeTask, Node: d, From: filepath.Dir(p)}, nil
	}
	name := filepath.Base(filepath.Clean(p))
	switch {
	case IsNPYDir(p):
		d, err := LoadNPYDir(p, name, true)
		if err != nil {
			return nil, err
		}
		return &Dataset{Name: name, Task: NodeTask, Node: d, From: p}, nil
	case IsOGBDir(p):
		d, err := LoadOGB(p, name, "")
		if err != nil {
			return nil, err
		}
		return &Dataset{Name: name, Task: NodeTask, Node: d, From: p}, nil
	}
	src := Dir(p)
	if !src.Exists(name + "_A.txt") {
		return nil, fmt.Errorf("%s: a dataset directory must hold %s_A.txt (TU), %s (the .npy CSR layout) or %s (OGB)", p, name, NPYIndptr, OGBEdges)
	}
	d, err := LoadTU(src, name, TUOptions{NodeAttr: opt.NodeAttr, Encoding: opt.Encoding})
	if err != nil {
		return nil, err
	}
	return &Dataset{Name: name, Task: GraphTask, Graph: d, From: p}, nil
}

// KnownNames are the command-line names of Known().
func KnownNames() []string {
	var names []string
	for _, in := range Known() {
		names = append(names, in.Name)
	}
	return slices.Clip(names)
}
