package data

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"testing"
)

// The sha256 of every embedded file, from shared/data/MANIFEST.md.
var embeddedSHA256 = map[string]string{
	"planetoid/ind.cora.allx":            "9419ba2f26f5c35243db64aba110e0f35a04851609e0dc5433450676ca6b8543",
	"planetoid/ind.cora.ally":            "2b998f5cc7fedc86e7f97ca2498f47a1ffc1462c29e2d578b23bf3f62b6e7d71",
	"planetoid/ind.cora.graph":           "58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d",
	"planetoid/ind.cora.test.index":      "297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875",
	"planetoid/ind.cora.tx":              "b9afbaa4a400df991f6f02ef677e1e44da55ffc04801fd02f9e673987829226a",
	"planetoid/ind.cora.ty":              "41f5ac76596a1699cc33f53084a2419e92961c42bb75f36fc38e616d348532ad",
	"planetoid/ind.cora.x":               "23cfa55d91c6f624233f5eb7b6e3f141f1bd2b2ae39608a63cf5d084bb27baab",
	"planetoid/ind.cora.y":               "94465c14eb53e04ca262198dcbb2521ee8af60fb3f3d546cd6ca24a511b0e7d1",
	"tu/MUTAG/MUTAG_A.txt":               "d9656ca7493f3445d737c711710bb36fd432dddd1c0ea32e1d4713c86ebd28e2",
	"tu/MUTAG/MUTAG_edge_labels.txt":     "4669ce755075ff86c3240709345745886400908fa637a49310459b9c267b3e56",
	"tu/MUTAG/MUTAG_graph_indicator.txt": "7d520a4d6c7961c0cdeabe076d8fe27e795b6d373485c9a2b744987e560a2056",
	"tu/MUTAG/MUTAG_graph_labels.txt":    "a1518ea39ba3426bd42f57396b9c4baffe68e9adc718caeeab0119c6591a5f2c",
	"tu/MUTAG/MUTAG_node_labels.txt":     "678f429965490e84dd27713017538c995fc05d1621beac910848b600015ee863",
	"tu/MUTAG/README.txt":                "66de65e4826e112482ec680bbbdf7c0af56d826ce935c110786d130b79b76b06",
}

func TestEmbeddedChecksums(t *testing.T) {
	src := Embedded()
	for name, want := range embeddedSHA256 {
		b, err := src.ReadFile(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: sha256 %s, want %s", name, got, want)
		}
	}
	// Nothing else is embedded.
	n := 0
	err := fs.WalkDir(src.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
			if _, ok := embeddedSHA256[p]; !ok {
				t.Errorf("unexpected embedded file %s", p)
			}
		}
		return err
	})
	if err != nil || n != len(embeddedSHA256) {
		t.Errorf("walked %d files (%v), want %d", n, err, len(embeddedSHA256))
	}
	if got := src.Path("planetoid/ind.cora.x"); got != "embedded:/planetoid/ind.cora.x" {
		t.Errorf("Path = %q", got)
	}
}
