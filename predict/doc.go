// Package predict classifies nodes and graphs with a trained model loaded
// from a checkpoint: a Predictor is safe for concurrent use, builds the
// node features of new graphs the way the model was trained (the
// checkpoint's node encoding), and returns each prediction's class and
// class probabilities.
//
//	p, err := predict.Load("mutag.safetensors")
//	...
//	preds, err := p.Graphs([]predict.Graph{{Nodes: 3, Edges: [][2]int{{0, 1}, {1, 2}}, Labels: []int64{0, 1, 0}}})
//	fmt.Println(preds[0].Label, preds[0].Probs)
package predict
