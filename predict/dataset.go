package predict

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/prcaps/prcaps/data"
)

// Classified is what Dataset returns: per node or graph, its id, the
// prediction and the data's own label, "" where the data has none.
type Classified struct {
	IDs         []int32
	Predictions []Prediction
	Truth       []string
}

// Accuracy is the share of the labelled items predicted right (comparing
// label names, since a dataset numbers its classes its own way), and how
// many were labelled.
func (c Classified) Accuracy() (acc float64, labelled int) {
	right := 0
	for i, pr := range c.Predictions {
		if c.Truth[i] != "" {
			labelled++
			if pr.Label == c.Truth[i] {
				right++
			}
		}
	}
	if labelled == 0 {
		return 0, 0
	}
	return float64(right) / float64(labelled), labelled
}

// Dataset classifies a loaded dataset's graphs, or the given nodes of a
// node dataset (all when nodes is nil). Load a graph dataset with the
// checkpoint's encoding (data.Options.Encoding), so its features are
// built as in training.
func (p *Predictor) Dataset(ds *data.Dataset, nodes []int32) (Classified, error) {
	if ds.Task != p.ck.Task {
		return Classified{}, fmt.Errorf("predict: %s is a %s-classification dataset; %s is a %s-classification model",
			ds.Name, ds.Task, p.ck.Model, p.ck.Task)
	}
	var c Classified
	var err error
	if ds.Task == data.GraphTask {
		g := ds.Graph
		for i, s := range g.Graphs {
			c.IDs = append(c.IDs, int32(i))
			c.Truth = append(c.Truth, g.ClassNames[s.Label])
		}
		c.Predictions, err = p.Samples(g.Graphs)
		return c, err
	}
	nd := ds.Node
	if c.Predictions, err = p.Nodes(nd.Graph, nd.X, nodes); err != nil {
		return c, err
	}
	c.IDs = nodes
	if nodes == nil {
		for v := range nd.Graph.N {
			c.IDs = append(c.IDs, int32(v))
		}
	}
	for _, v := range c.IDs {
		t := ""
		if nd.Y[v] >= 0 {
			t = strconv.Itoa(int(nd.Y[v]))
		}
		c.Truth = append(c.Truth, t)
	}
	return c, nil
}

// WriteJSON writes one JSON object per prediction: the id, the class, its
// label, the probabilities and the data's label when it has one.
func (c Classified) WriteJSON(w io.Writer, _ []string) error {
	enc := json.NewEncoder(w)
	for i, pr := range c.Predictions {
		rec := struct {
			ID int32 `json:"id"`
			Prediction
			Truth string `json:"data_label,omitempty"`
		}{c.IDs[i], pr, c.Truth[i]}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return nil
}

// WriteCSV writes a header (id, class, label, data_label, then p_<class>
// for each of classes) and one row per prediction.
func (c Classified) WriteCSV(w io.Writer, classes []string) error {
	cw := csv.NewWriter(w)
	header := []string{"id", "class", "label", "data_label"}
	for _, name := range classes {
		header = append(header, "p_"+name)
	}
	cw.Write(header)
	for i, pr := range c.Predictions {
		row := []string{strconv.Itoa(int(c.IDs[i])), strconv.Itoa(pr.Class), pr.Label, c.Truth[i]}
		for _, q := range pr.Probs {
			row = append(row, strconv.FormatFloat(q, 'g', 6, 64))
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}
