package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
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
		"  prcaps datasets verify [NAME...]   check the files under --data against their sha256", stderr)
	root := fs.String("data", data.DefaultRoot(), "data directory (layout: planetoid/, coauthor/, npz/, tu/<NAME>/); default $PRCAPS_DATA, then the user cache; empty = embedded Cora and MUTAG only")
	only := fs.String("dataset", "", "comma-separated dataset names (default: all known)")
	asJSON := fs.Bool("json", false, "print one JSON object per dataset")
	nodeAttr := fs.Bool("node-attr", false, "append TU node attributes to the features")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	names := data.KnownNames()
	explicit := *only != ""
	if explicit {
		names = strings.Split(*only, ",")
	}
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataset\ttask\tnodes\tedges\tfeatures\tclasses\tgraphs\tclass counts\tload s\tfrom\t")
	rows := 0
	var problems []string
	var skipped []string
	for _, name := range names {
		name = strings.TrimSpace(name)
		start := time.Now()
		ds, err := data.Load(name, data.Options{Root: *root, NodeAttr: *nodeAttr})
		secs := time.Since(start).Seconds()
		if err != nil {
			if !explicit && *root == "" && errors.Is(err, data.ErrNeedsData) {
				skipped = append(skipped, name)
				continue
			}
			problems = append(problems, err.Error())
			if *asJSON {
				json.NewEncoder(stdout).Encode(map[string]string{"dataset": name, "error": err.Error()})
			}
			continue
		}
		st := ds.Stats()
		if *asJSON {
			if err := json.NewEncoder(stdout).Encode(struct {
				data.Stats
				LoadSeconds float64 `json:"load_seconds"`
			}{st, secs}); err != nil {
				return err
			}
			continue
		}
		nodes, edges := st.Nodes, st.UndirectedEdges
		graphs, counts := "", ""
		if ds.Task == data.GraphTask {
			nodes, edges = st.TotalNodes, st.TotalEdges
			graphs = fmt.Sprint(st.Graphs)
			counts = formatCounts(st.ClassCounts)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%.3f\t%s\t\n", st.Dataset, st.Task, nodes, edges, st.Features, st.Classes, graphs, counts, secs, st.From)
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
		return fmt.Errorf("%d of %d datasets could not be loaded", len(problems), len(names))
	}
	return nil
}

func formatCounts(m map[string]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s:%d", k, v))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

func runDatasetsVerb(verb string, args []string, stdout, stderr io.Writer) error {
	def := data.DefaultRoot()
	if def == "" {
		def = data.CacheRoot()
	}
	fs := newFlagSet("datasets "+verb, map[string]string{
		"download": "Downloads the raw files of the named datasets from their canonical locations into --data,\nverifying each file's sha256. Files already present with the right checksum are skipped.",
		"verify":   "Checks the files of the named datasets (default: all) under --data against their sha256.",
	}[verb], stderr)
	root := fs.String("data", def, "data directory")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long")
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
			return usagef("name the datasets to download (known: %s)", strings.Join(data.KnownNames(), ", "))
		}
		names = data.KnownNames()
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
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
