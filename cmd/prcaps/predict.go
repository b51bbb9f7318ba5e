package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/prcaps/prcaps/data"
	"github.com/prcaps/prcaps/experiment"
	"github.com/prcaps/prcaps/predict"
)

func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("predict", "Classifies the nodes or graphs of a dataset with a model saved by prcaps train --save, and\n"+
		"prints per node or graph the predicted class label and the class probabilities (CSV, or JSON lines\n"+
		"with --json). Graph datasets get their node features the way the model was trained (its encoding).\n"+
		"Where the data has labels, the accuracy against them goes to stderr.", stderr)
	ckPath := fs.String("model", "", "the checkpoint `file` (required)")
	dataset := fs.String("dataset", "", "dataset name or path (a TU directory, an .npz file); default: the one the model was trained on")
	root := fs.String("data", data.DefaultRoot(), "data directory; default $PRCAPS_DATA, then the user cache; Cora and MUTAG are embedded")
	edges := fs.String("edges", "", "node models: your own graph's edge list (CSV/TSV \"src,dst\"); replaces --dataset")
	features := fs.String("features", "", "with --edges: node features file (\"id,f1,...,fd\"), as wide as the model's input")
	labels := fs.String("labels", "", "with --edges: optional node labels (\"id,label\"), for the accuracy on stderr")
	nodes := fs.String("nodes", "", "node models: comma-separated node ids to classify (default: all)")
	asJSON := fs.Bool("json", false, "print one JSON object per node or graph instead of CSV")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *ckPath == "" {
		return usagef("--model FILE is required")
	}
	set := setFlags(fs)
	if err := notApplicable(set, "with --edges (your own graph replaces the dataset)", "dataset", "data"); *edges != "" && err != nil {
		return err
	}
	if err := checkRoot(*root, set["data"]); err != nil {
		return err
	}
	p, err := predict.Load(*ckPath)
	if err != nil {
		return err
	}
	ck := p.Checkpoint()
	if ck.Task == data.GraphTask {
		if err := notApplicable(set, fmt.Sprintf("to %s, a graph-classification model (it classifies whole graphs)", ck.Model), "nodes", "edges", "features", "labels"); err != nil {
			return err
		}
	}
	name := *dataset
	if name == "" {
		name = ck.Dataset
	}
	var ds *data.Dataset
	switch {
	case *edges != "":
		if ds, err = data.LoadPlainDataset(*edges, *features, *labels); err != nil {
			return err
		}
	case *features != "" || *labels != "":
		return usagef("--features and --labels go with --edges")
	default:
		opt := data.Options{Root: *root, Encoding: ck.Encoding, NodeAttr: ck.Encoding != nil && ck.Encoding.Attributes > 0}
		if ds, err = data.Load(name, opt); err != nil {
			return err
		}
	}
	if ds.Task != ck.Task { // a usage error here; predict.Dataset says the same
		return usagef("%s is a %s-classification dataset; %s is a %s-classification model", ds.Name, ds.Task, ck.Model, ck.Task)
	}
	if ds.Fingerprint() == ck.DatasetSHA256 {
		fmt.Fprintf(stderr, "note: %s is the data the model was trained on (its test nodes or folds are among them)\n", ds.Name)
	}
	ids, err := parseNodes(*nodes)
	if err != nil {
		return err
	}
	if err := experiment.CheckMemory(fmt.Sprintf("classifying %s with %s", ds.Name, ck.Model), p.DatasetBytes(ds, ids)); err != nil {
		return err
	}
	c, err := p.Dataset(ds, ids)
	if err != nil {
		return err
	}
	write := c.WriteCSV
	if *asJSON {
		write = c.WriteJSON
	}
	if err := write(stdout, ck.ClassNames); err != nil {
		return err
	}
	acc, labelled := c.Accuracy()
	if labelled > 0 {
		fmt.Fprintf(stderr, "%d %s(s) classified; accuracy %.4f on the %d with a label in the data\n",
			len(c.Predictions), ds.Task, acc, labelled)
	}
	return nil
}

// parseNodes parses --nodes (nil: all nodes).
func parseNodes(s string) ([]int32, error) {
	if s == "" {
		return nil, nil
	}
	var ids []int32
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
		if err != nil || v < 0 {
			return nil, usagef("--nodes: %q is not a node id", f)
		}
		ids = append(ids, int32(v))
	}
	return ids, nil
}
