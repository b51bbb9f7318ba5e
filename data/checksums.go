package data

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// DatasetFile is one file of a downloadable dataset: where it goes under the
// data root, what it must contain, and where it is published.
type DatasetFile struct {
	// Path is the file's place under the data root, slash-separated,
	// e.g. "planetoid/ind.cora.x" or "tu/MUTAG/MUTAG_A.txt".
	Path string
	// Size and SHA256 (lower-case hex) are those of the reference copy the
	// project was tested on (the table of ../shared/data/MANIFEST.md).
	Size   int64
	SHA256 string
	// URL is the canonical download location: the file itself, or for a TU
	// file the dataset's zip archive, inside which the file is Member.
	URL    string
	Member string
	// Optional files (TU READMEs and edge labels) are read by no loader: a
	// download whose archive lacks one, or has a different one, still
	// succeeds without it.
	Optional bool
	// Lines, when non-zero, allows a second acceptable form of the file:
	// one of Size bytes and Lines lines whose SHA256 differs. Only DD_A.txt
	// has it. The reference DD_A.txt was rebuilt from another copy of DD and
	// lists the same arcs as the official zip's, in the same "u, v" form (so
	// the size is equal), but in a different order; the official file thus
	// has other bytes, and there is no pinned checksum of it to compare
	// against. Same size and same line count is the check that remains.
	Lines int64
	// ArchiveSHA256, when set, is the pinned SHA256 of the zip at URL, of
	// which the file is Member, and the file has no pinned checksum of its
	// own (Size and SHA256 are empty in DatasetFiles): Download checks the
	// archive before it extracts anything, and records what it extracted in
	// the dataset directory's ArchiveManifest, against which Verify then
	// checks the file (its FileStatus.File carries the recorded Size and
	// SHA256).
	ArchiveSHA256 string
}

// Canonical publication places.
const (
	dlPlanetoidBase = "https://github.com/kimiyoung/planetoid/raw/master/data/"
	dlNPZBase       = "https://github.com/shchur/gnn-benchmark/raw/master/data/npz/"
	dlTUBase        = "https://www.chrsmrrs.com/graphkerneldatasets/"
	dlOGBBase       = "https://snap.stanford.edu/ogb/data/nodeproppred/"
)

// dlTable is the reference size and SHA256 of every dataset file, copied
// from ../shared/data/MANIFEST.md (including PubMed's allx, which is listed
// there under "Not available here").
var dlTable = []struct {
	path   string
	size   int64
	sha256 string
}{
	{"coauthor/ms_academic_cs.npz", 12835626, "933c745734e78908c7eb77172a673fee0503f30e26e5a99b36814d88534c42e3"},
	{"planetoid/ind.citeseer.allx", 595021, "2ac30345d95c9ec933a817ee0bdd6a5f077f8c184a20e696910192d534414668"},
	{"planetoid/ind.citeseer.ally", 55623, "f704b2d986dde6c2669934de1f3ae5696a6cf9455c0f6b2646a2d135ea0a1c95"},
	{"planetoid/ind.citeseer.graph", 61987, "d79a4ef9d3e7169aee8946145f6b7306e35bc79bffad26346cfb94e10e9912a7"},
	{"planetoid/ind.citeseer.test.index", 5000, "2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4"},
	{"planetoid/ind.citeseer.tx", 260321, "539a8906a2da97628d212f2fdd668c109a8b3f0d36574b59e5d3fd5b5303da21"},
	{"planetoid/ind.citeseer.ty", 24135, "55e5bd1ba1e733a04598753ad1a8d57957f4b8f89e74519f41f4f4938767e4ce"},
	{"planetoid/ind.citeseer.x", 31087, "d20de19150741e555de0ed037195630fc194114ebc7fd72ced62810148aa22f6"},
	{"planetoid/ind.citeseer.y", 3014, "8ba87e515d8e3ee3cf52f6d2c5b86aa73f11ecad825a808455209ec26cd54924"},
	{"planetoid/ind.cora.allx", 257305, "9419ba2f26f5c35243db64aba110e0f35a04851609e0dc5433450676ca6b8543"},
	{"planetoid/ind.cora.ally", 47959, "2b998f5cc7fedc86e7f97ca2498f47a1ffc1462c29e2d578b23bf3f62b6e7d71"},
	{"planetoid/ind.cora.graph", 59847, "58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d"},
	{"planetoid/ind.cora.test.index", 5000, "297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875"},
	{"planetoid/ind.cora.tx", 148025, "b9afbaa4a400df991f6f02ef677e1e44da55ffc04801fd02f9e673987829226a"},
	{"planetoid/ind.cora.ty", 28135, "41f5ac76596a1699cc33f53084a2419e92961c42bb75f36fc38e616d348532ad"},
	{"planetoid/ind.cora.x", 22119, "23cfa55d91c6f624233f5eb7b6e3f141f1bd2b2ae39608a63cf5d084bb27baab"},
	{"planetoid/ind.cora.y", 4054, "94465c14eb53e04ca262198dcbb2521ee8af60fb3f3d546cd6ca24a511b0e7d1"},
	{"planetoid/ind.pubmed.ally", 224739, "0c37bbe3b5014ec365e9d393cf4791925e5ed94fb194305d74f064a8d7b50f0e"},
	{"planetoid/ind.pubmed.graph", 471808, "5b89f0036ca22909471f1e6558eb42fa06e0c730a577bde5b058b40638f81dc9"},
	{"planetoid/ind.pubmed.test.index", 6000, "b101d421688bbaecbd82e8a18f1e282378d6830f3a37666f28ebc47f844341b5"},
	{"planetoid/ind.pubmed.tx", 405505, "4eb5f5d0f30f26497eb0ac6ac9719d09c67e284f1ed0385c93f3ef27a671da3d"},
	{"planetoid/ind.pubmed.ty", 12135, "ee2e0d4819d9fbcc403689c3bf2e49face401b605932f093bc58ab6461130fdd"},
	{"planetoid/ind.pubmed.x", 23172, "fbe9cb5c47200d1b7769a26e579be3b7130b556831f9d850e77c4c74f2599b33"},
	{"planetoid/ind.pubmed.y", 854, "e6c807633307a07ed659249006536a147c7999c797f11a2560752990181b41b3"},
	{"tu/DD/DD_A.txt", 24153822, "326814432a1307645c6d41e1f6556a6384f8c47f2b3ffdb4ef4f7600df222093"},
	{"tu/DD/DD_graph_indicator.txt", 1319775, "95aabe75f6537326a14e4efc0d006854c20769f3cfc4877b862803d21c51aff2"},
	{"tu/DD/DD_graph_labels.txt", 2356, "b9df6495feb673f79dea357cca30e08f8602e52d978c77b53ec2552d1cb2ab4e"},
	{"tu/DD/DD_node_labels.txt", 853624, "b0d10b05702c2d655d691b5a6f5585081993860013eeab801572202df1c5c108"},
	{"tu/DD/README.txt", 2530, "980903d8294920565c89dfd173dadc575cb332964cd3ae09e996518a2bbdfa33"},
	{"tu/MUTAG/MUTAG_A.txt", 76940, "d9656ca7493f3445d737c711710bb36fd432dddd1c0ea32e1d4713c86ebd28e2"},
	{"tu/MUTAG/MUTAG_edge_labels.txt", 14884, "4669ce755075ff86c3240709345745886400908fa637a49310459b9c267b3e56"},
	{"tu/MUTAG/MUTAG_graph_indicator.txt", 11532, "7d520a4d6c7961c0cdeabe076d8fe27e795b6d373485c9a2b744987e560a2056"},
	{"tu/MUTAG/MUTAG_graph_labels.txt", 439, "a1518ea39ba3426bd42f57396b9c4baffe68e9adc718caeeab0119c6591a5f2c"},
	{"tu/MUTAG/MUTAG_node_labels.txt", 6742, "678f429965490e84dd27713017538c995fc05d1621beac910848b600015ee863"},
	{"tu/MUTAG/README.txt", 2611, "66de65e4826e112482ec680bbbdf7c0af56d826ce935c110786d130b79b76b06"},
	{"tu/NCI1/NCI1_A.txt", 3235898, "2c028eda59a5fe96e2265a63d9ac236901bd9a7dc658498be13cd704a703076d"},
	{"tu/NCI1/NCI1_graph_indicator.txt", 585267, "ffe5acfa754b057d5ce0dc725c5aadb631628161886cc040d38c719635257dc5"},
	{"tu/NCI1/NCI1_graph_labels.txt", 8220, "fae44681e70113f496256ae87eaac33b7836e3a97fe8e023933b84fde6a5c8a2"},
	{"tu/NCI1/NCI1_node_labels.txt", 245932, "dc0a22b6cbff0c939de00373e823977ba32b358f560e4288d7602f7b51407ee2"},
	{"tu/NCI1/README.txt", 2477, "1866d918409a22531ef00ff7b0f72200c3a06722342c23c5e3299cebb5cd8757"},
	{"tu/NCI109/NCI109_A.txt", 3231486, "9c0ae8c1e631f771663de1e095eb36604f4feeb512e46b90b0409f05f876bab6"},
	{"tu/NCI109/NCI109_graph_indicator.txt", 583372, "f86bb0249bf985be397f46c493879022cb068b1d4331215151442de1738c9163"},
	{"tu/NCI109/NCI109_graph_labels.txt", 8254, "8ab9932d5347b935e3aaa7be2f787cc78860fa1af9df836dd3f03cde6939b640"},
	{"tu/NCI109/NCI109_node_labels.txt", 245264, "d2ceda711b4ea4218909e5527325374d7e50c698b0d8a22567390a5526dbd6bc"},
	{"tu/NCI109/README.txt", 2479, "11661d333555f49157b9edc5bfda849860035c78470e652ac7f99e2f8c0b4388"},
	{"tu/PROTEINS/PROTEINS_A.txt", 2022990, "4c4b33e272fc95cac6d27ed6d5d12b9a852c8610e91fff59f8f0dbdd5a20df67"},
	{"tu/PROTEINS/PROTEINS_graph_indicator.txt", 169673, "8d4ff1e852a5c28561e9bffb44cf9490bc552b13a3b6156dd12dc7f44e9afc4a"},
	{"tu/PROTEINS/PROTEINS_graph_labels.txt", 2226, "c0ef9810c440775252872318d0c8adc385588e14bc4c47a2c34aa96ee3c7cdcd"},
	{"tu/PROTEINS/PROTEINS_node_attributes.txt", 478190, "54eef829abb37e458a5fbf3a3c581e48e5810e220463c2cd951856b9ceb08f07"},
	{"tu/PROTEINS/PROTEINS_node_labels.txt", 86942, "f758e8ad3d6e3c026b50833d75f6f90735b94eb3345e4243707f495ca8afea8d"},
	{"tu/PROTEINS/README.txt", 2221, "e9c4ed2c9a4059ddfdc2eb7330ebecfc6c8d42dabd5ce2ee67f28aed0db49da7"},
	{"planetoid/ind.pubmed.allx", 7578385, "508e538e2abdccdd54c4d3e9f49d638b4af7107d85845f66ddea5a5152658b7e"},
}

// dlDDALines is the number of lines (arcs) of DD_A.txt, in the reference
// copy and in the official zip alike.
const dlDDALines = 1686092

// dlDatasets maps the CLI's dataset names to their files' directory prefix
// and, for TU sets, the TU name.
var dlDatasets = []struct {
	name   string
	prefix string // files whose Path starts with it belong to the dataset
	tu     string // TU name, "" for a directly downloaded dataset
}{
	{"cora", "planetoid/ind.cora.", ""},
	{"citeseer", "planetoid/ind.citeseer.", ""},
	{"pubmed", "planetoid/ind.pubmed.", ""},
	{"cs", "coauthor/ms_academic_cs.npz", ""},
	{"mutag", "tu/MUTAG/", "MUTAG"},
	{"nci1", "tu/NCI1/", "NCI1"},
	{"nci109", "tu/NCI109/", "NCI109"},
	{"dd", "tu/DD/", "DD"},
	{"proteins", "tu/PROTEINS/", "PROTEINS"},
}

// dlArchives are the datasets pinned by their archive's checksum alone:
// OGB publishes each node dataset as one zip and no checksum of its
// members, and no reference copy of them is at hand to pin one.
//
// arxiv.zip's SHA256 is the one two independent public sources give for
// the published file. Its size (83,058,288 bytes by two other public
// records) is not pinned: the SHA256 decides on its own, and the download
// is bounded by dlMaxArchive.
// ogbn-products is not here: only one source for its checksum was found.
var dlArchives = []dlArchiveSpec{{
	name:   "ogbn-arxiv",
	dir:    "ogb/ogbn_arxiv",
	url:    dlOGBBase + "arxiv.zip",
	sha256: "49f85c801589ecdcc52cfaca99693aaea7b8af16a9ac3f41dd85a5f3193fe276",
	limit:  dlMaxArchive,
	prefix: "arxiv/",
	// What LoadOGB reads; the archive's mapping/, node_year and edge
	// count are left in it.
	files: []string{OGBEdges, OGBFeatures, OGBLabels, OGBNodes,
		"split/time/test.csv.gz", "split/time/train.csv.gz", "split/time/valid.csv.gz"},
}}

// dlArchiveOf finds the archive-pinned dataset of that name
// (case-insensitive).
func dlArchiveOf(dataset string) (dlArchiveSpec, bool) {
	key := strings.ToLower(dataset)
	for _, a := range dlArchives {
		if a.name == key {
			return a, true
		}
	}
	return dlArchiveSpec{}, false
}

// DownloadableDatasets lists the names Download and Verify accept, in the
// order of DESIGN.md §7, then the archive-pinned ones (ogbn-arxiv).
func DownloadableDatasets() []string {
	names := make([]string, 0, len(dlDatasets)+len(dlArchives))
	for _, d := range dlDatasets {
		names = append(names, d.name)
	}
	for _, a := range dlArchives {
		names = append(names, a.name)
	}
	return names
}

// DatasetFiles returns the files of dataset (a name of
// DownloadableDatasets, case-insensitive), sorted by path.
func DatasetFiles(dataset string) ([]DatasetFile, error) {
	key := strings.ToLower(dataset)
	if a, ok := dlArchiveOf(key); ok {
		return a.datasetFiles(nil), nil
	}
	for _, d := range dlDatasets {
		if d.name != key {
			continue
		}
		var files []DatasetFile
		for _, e := range dlTable {
			if !strings.HasPrefix(e.path, d.prefix) {
				continue
			}
			f := DatasetFile{Path: e.path, Size: e.size, SHA256: e.sha256}
			base := path.Base(e.path)
			switch {
			case d.tu != "":
				f.URL = dlTUBase + d.tu + ".zip"
				f.Member = d.tu + "/" + base
				f.Optional = base == "README.txt" || strings.HasSuffix(base, "_edge_labels.txt")
				if e.path == "tu/DD/DD_A.txt" {
					f.Lines = dlDDALines
				}
			case strings.HasPrefix(e.path, "coauthor/"):
				f.URL = dlNPZBase + base
			default:
				f.URL = dlPlanetoidBase + base
			}
			files = append(files, f)
		}
		slices.SortFunc(files, func(a, b DatasetFile) int { return strings.Compare(a.Path, b.Path) })
		return files, nil
	}
	return nil, fmt.Errorf("no download source for dataset %q (known: %s)", dataset,
		strings.Join(DownloadableDatasets(), ", "))
}
