package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prcaps/prcaps/data"
)

func runDatasets(args []string, stdout, stderr io.Writer) error {
	// `prcaps datasets download NAME...` and `prcaps datasets verify` are verbs.
	if len(args) > 0 && (args[0] == "download" || args[0] == "verify") {
		verb := args[0]
		return runDatasetsVerb(verb, args[1:], stdout, stderr)
	}
	fs := newFlagSet("datasets", "Loads every dataset (or those named with --dataset) and prints its statistics:\n"+
		"nodes, undirected edges, features and classes for node sets; graphs, total nodes, total\n"+
		"undirected edges, classes and class counts for graph sets.\n\n"+
		"  prcaps datasets download NAME...   fetch raw files into --data (default: the user cache)\n"+
		"  prcaps datasets verify [NAME...]   check the files under --data against their sha256\n\n"+
		"NAME is one of: "+strings.Join(data.DownloadableDatasets(), ", "), stderr)
	root := fs.String("data", data.DefaultRoot(), "data directory (layout: planetoid/, coauthor/, npz/, tu/<NAME>/); default $PRCAPS_DATA, then the user cache; empty = embedded Cora and MUTAG only")
	only := fs.String("dataset", "", "comma-separated dataset names (default: all known)")
	asJSON := fs.Bool("json", false, "print one JSON object per dataset")
	nodeAttr := fs.Bool("node-attr", false, "append TU node attributes to the features")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataset\ttask\tnodes\tedges\tfeatures\tclasses\tgraphs\tclass counts\tload s\tfrom\t")
	rows := 0
	var problems, skipped []string
	entries := data.Survey(names, data.Options{Root: *root, NodeAttr: *nodeAttr})
	for _, e := range entries {
		switch {
		case e.Skipped:
			skipped = append(skipped, e.Name)
			continue
		case e.Err != nil:
			problems = append(problems, e.Err.Error())
			if *asJSON {
				json.NewEncoder(stdout).Encode(map[string]string{"dataset": e.Name, "error": e.Err.Error()})
			}
			continue
		}
		st := e.Stats
		if *asJSON {
			if err := json.NewEncoder(stdout).Encode(struct {
				data.Stats
				LoadSeconds float64 `json:"load_seconds"`
			}{st, e.Seconds}); err != nil {
				return err
			}
			continue
		}
		nodes, edges := st.Nodes, st.UndirectedEdges
		graphs, counts := "", ""
		if st.Task == data.GraphTask.String() {
			nodes, edges = st.TotalNodes, st.TotalEdges
			graphs = fmt.Sprint(st.Graphs)
			counts = data.FormatCounts(st.ClassCounts)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%.3f\t%s\t\n", st.Dataset, st.Task, nodes, edges, st.Features, st.Classes, graphs, counts, e.Seconds, st.From)
		rows++
	}
	tw.Flush()
	if rows > 0 {
		stdout.Write(table.Bytes())
	}
	if len(skipped) > 0 {
		fmt.Fprintf(stderr, "not shown (no data directory; pass --data DIR or set %s): %s\n", data.EnvVar, strings.Join(skipped, ", "))
	}
	for _, p := range problems {
		fmt.Fprintln(stderr, p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d of %d datasets could not be loaded", len(problems), len(entries))
	}
	return nil
}

func runDatasetsVerb(verb string, args []string, stdout, stderr io.Writer) error {
	def := data.DefaultRoot()
	if def == "" {
		def = data.CacheRoot()
	}
	fs := newFlagSet("datasets "+verb, map[string]string{
		"download": "Downloads the raw files of the named datasets from their canonical locations into --data,\n" +
			"verifying each file's sha256. Files already present with the right checksum are skipped.\n" +
			"ogbn-arxiv: OGB's arxiv.zip is checked against its pinned sha256, then the files the loader\n" +
			"reads are extracted and recorded in " + data.ArchiveManifest + ".",
		"verify": "Checks the files of the named datasets (default: all) under --data against their sha256;\n" +
			"ogbn-arxiv's against the " + data.ArchiveManifest + " its download wrote.",
	}[verb]+"\n\nNAME is one of: "+strings.Join(data.DownloadableDatasets(), ", "), stderr)
	root := fs.String("data", def, "data directory")
	var timeout time.Duration
	positiveDurationVar(fs, &timeout, "timeout", 10*time.Minute, "give up after this long (positive)")
	// Allow names before or after flags.
	var names []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) > 0 {
			names = append(names, args[0])
			args = args[1:]
		}
	}
	if *root == "" {
		return usagef("no data directory: pass --data DIR")
	}
	if len(names) == 0 {
		if verb == "download" {
			return usagef("name the datasets to download (known: %s)", strings.Join(data.DownloadableDatasets(), ", "))
		}
		names = data.DownloadableDatasets()
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	switch verb {
	case "download":
		d := &data.Downloader{Progress: stderr}
		for _, n := range names {
			if err := d.Download(ctx, strings.ToLower(n), *root); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: ok (%s)\n", n, *root)
		}
		return nil
	default:
		bad := 0
		for _, n := range names {
			st, err := data.Verify(*root, strings.ToLower(n))
			if err != nil {
				fmt.Fprintf(stderr, "%s: %v\n", n, err)
				bad++
				continue
			}
			for _, f := range st {
				state := "ok"
				if !f.OK() {
					state = fmt.Sprint(f.State)
					if !f.File.Optional {
						bad++
					}
				}
				fmt.Fprintf(stdout, "%-8s %-45s %s\n", state, f.File.Path, n)
			}
		}
		if bad > 0 {
			return fmt.Errorf("%d problems under %s", bad, *root)
		}
		return nil
	}
}
