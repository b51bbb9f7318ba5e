package record

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// An embeddings file reads back as written; one whose shape does not
// match its values or labels, or with an unknown field, is an error
// naming the file.
func TestEmbeddingsRoundTrip(t *testing.T) {
	f := &EmbeddingFile{Dataset: "Cora", Model: "gcn", Run: 2, ValAcc: 0.75, Rows: 3, Cols: 2,
		Labels: []int32{0, 1, -1}, Data: []float32{1, 2, 3, 4, 5, 0.5}}
	var buf bytes.Buffer
	if err := WriteEmbeddings(&buf, f); err != nil {
		t.Fatal(err)
	}
	back, err := ReadEmbeddings(buf.Bytes(), "e.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, f) {
		t.Errorf("read back %+v, want %+v", back, f)
	}
	for _, bad := range []string{
		`{"rows":2,"cols":1,"labels":[0],"data":[1,2]}`,
		`{"rows":1,"cols":2,"labels":[0],"data":[1]}`,
		`{"rows":0,"cols":0,"labels":[],"data":[]}`,
		`{"rows":1,"cols":1,"labels":[0],"data":[1],"extra":true}`,
		`not json`,
	} {
		if _, err := ReadEmbeddings([]byte(bad), "e.json"); err == nil || !strings.Contains(err.Error(), "e.json") {
			t.Errorf("ReadEmbeddings(%s): %v, want an error naming e.json", bad, err)
		}
	}
}
