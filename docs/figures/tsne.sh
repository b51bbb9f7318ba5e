#!/bin/sh
# Regenerates docs/figures/tsne-<dataset>.{png,svg}: t-SNE maps of the node
# embeddings of the paper's t-SNE models, one seed each, each model with its
# recipe (TGNN with the configuration `prcaps tune` chose on validation for
# the dataset), the embedding of the selected epoch.
# Run from the repository root:
#   sh docs/figures/tsne.sh cora                           (embedded copy)
#   sh docs/figures/tsne.sh citeseer ../shared/data        (needs the files)
set -e
dataset=${1:-cora}
data=${2:-}
case $dataset in
cora) tgnn="--conv sage --layers 2 --hidden 128 --dropout 0.7 --residual" ;;
citeseer) tgnn="--conv gcn --layers 2 --hidden 64 --dropout 0.5 --residual" ;;
*) echo "tsne.sh: no TGNN configuration was searched for $dataset" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/prcaps" ./cmd/prcaps
for m in dgcnn gatv2 ssgc qgcn; do
	"$tmp/prcaps" train --data "$data" --dataset "$dataset" --model "$m" --embeddings "$tmp/$m.json" --quiet
done
# shellcheck disable=SC2086 # $tgnn is a list of flags
"$tmp/prcaps" train --data "$data" --dataset "$dataset" --model tgnn $tgnn --lr 0.01 --epochs 200 \
	--embeddings "$tmp/tgnn.json" --quiet
"$tmp/prcaps" train --data "$data" --dataset "$dataset" --model prcapsnet --embeddings "$tmp/prcapsnet.json" --quiet
"$tmp/prcaps" plot --out docs/figures "$tmp/dgcnn.json" "$tmp/gatv2.json" "$tmp/ssgc.json" \
	"$tmp/qgcn.json" "$tmp/tgnn.json" "$tmp/prcapsnet.json"
