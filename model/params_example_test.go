package model_test

import (
	"fmt"
	"strings"

	"github.com/prcaps/prcaps/model"
)

// PR-CapsNet's graph parameters layer by layer, with the graph defaults
// (hidden 64, s = t = 9 so d = 18, one node-level ACR layer with K = 4
// perspectives, graph-level routing to the classes, PRCC) on MUTAG's shape
// (7 one-hot node labels, 2 classes), and the totals on the five Table 2
// datasets beside the paper's counts (docs/notes/paper-table2.md reads
// them): every input feature adds the stem's 64, as in the paper, and the
// rest is 6,414 more than the paper's on every dataset.
func ExampleCountParams_prCapsGraph() {
	count := func(features int) (model.Model, int) {
		m, err := model.NewGraph("prcapsnet", nil, model.Shape{Features: features, Classes: 2}, 0)
		if err != nil {
			panic(err)
		}
		return m, model.CountParams(m)
	}
	m, total := count(7)
	var order []string
	parts := map[string]int{}
	for _, g := range m.Groups() {
		for _, p := range g.Params {
			layer, name, _ := strings.Cut(p.Name, ".")
			part := layer
			switch {
			case g.Name == "curvature":
				part = "curvatures β, ρ_k"
			case strings.HasPrefix(name, "align_") || name == "wc" || strings.HasPrefix(name, "alpha_"):
				part = layer + " gate (align_a, align_z: d × K·16 each; align_w, wc, α)"
			case strings.HasPrefix(name, "class"):
				part = layer + " W_k of class 1 (9×9 + 9×9 + 18 per perspective)"
			case layer == "routing0" || layer == "graph_routing":
				part = layer + " W_k (of class 0 in graph_routing)"
			}
			if _, ok := parts[part]; !ok {
				order = append(order, part)
			}
			parts[part] += p.Value.Len()
		}
	}
	for _, part := range order {
		fmt.Printf("%6d  %s\n", parts[part], part)
	}
	fmt.Printf("%6d  total\n", total)
	for _, ds := range []struct {
		name            string
		features, paper int
	}{{"MUTAG", 7, 2286}, {"NCI1", 37, 4206}, {"NCI109", 38, 4270}, {"DD", 89, 7534}, {"PROTEINS", 3, 2030}} {
		_, n := count(ds.features)
		fmt.Printf("%s: %d, paper %d, difference %d, ratio %.2f\n", ds.name, n, ds.paper, n-ds.paper, float64(n)/float64(ds.paper))
	}
	// Output:
	//    512  stem
	//   1170  proj
	//     36  norm
	//    720  routing0 W_k (of class 0 in graph_routing)
	//   2387  routing0 gate (align_a, align_z: d × K·16 each; align_w, wc, α)
	//    720  graph_routing W_k (of class 0 in graph_routing)
	//   2387  graph_routing gate (align_a, align_z: d × K·16 each; align_w, wc, α)
	//    720  graph_routing W_k of class 1 (9×9 + 9×9 + 18 per perspective)
	//     39  prcc
	//      9  curvatures β, ρ_k
	//   8700  total
	// MUTAG: 8700, paper 2286, difference 6414, ratio 3.81
	// NCI1: 10620, paper 4206, difference 6414, ratio 2.52
	// NCI109: 10684, paper 4270, difference 6414, ratio 2.50
	// DD: 13948, paper 7534, difference 6414, ratio 1.85
	// PROTEINS: 8444, paper 2030, difference 6414, ratio 4.16
}
