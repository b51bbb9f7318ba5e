#!/bin/sh
# Regenerates docs/figures/prcapsnet-cora-curves.{png,svg} and
# prcapsnet-cora-curvature.{png,svg}: PR-CapsNet's training curves and its
# learned curvatures (the network's β, each perspective's β_k) per epoch on
# Cora (the embedded copy), mean ± std over the 10 random 60/20/20 splits.
# Run from the repository root: sh docs/figures/curvature-cora.sh
set -e
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/prcaps" ./cmd/prcaps
"$tmp/prcaps" train --data "" --seeds 10 --parallel 2 --curves "$tmp/prcapsnet-cora.jsonl" --quiet
"$tmp/prcaps" plot --out docs/figures "$tmp/prcapsnet-cora.jsonl"
