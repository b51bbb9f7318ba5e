#!/bin/sh
# Regenerates docs/figures/tsne-cora.{png,svg}: t-SNE maps of the node
# embeddings of the paper's t-SNE models on Cora (the embedded copy), one
# seed each, each model with its recipe (TGNN with the configuration
# `prcaps tune` chose on validation), the embedding of the selected epoch.
# Run from the repository root: sh docs/figures/tsne-cora.sh
set -e
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/prcaps" ./cmd/prcaps
for m in dgcnn gatv2 ssgc qgcn; do
	"$tmp/prcaps" train --data "" --model "$m" --embeddings "$tmp/$m.json" --quiet
done
"$tmp/prcaps" train --data "" --model tgnn --conv sage --layers 2 --hidden 128 --dropout 0.7 --residual \
	--lr 0.01 --epochs 200 --embeddings "$tmp/tgnn.json" --quiet
"$tmp/prcaps" train --data "" --model prcapsnet --embeddings "$tmp/prcapsnet.json" --quiet
"$tmp/prcaps" plot --out docs/figures "$tmp/dgcnn.json" "$tmp/gatv2.json" "$tmp/ssgc.json" \
	"$tmp/qgcn.json" "$tmp/tgnn.json" "$tmp/prcapsnet.json"
