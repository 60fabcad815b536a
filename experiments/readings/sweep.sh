#!/usr/bin/env bash
# The readings sweep of the paper's self-play (docs/paper.md, "Which reading gives Table 2"):
# one `reproduce paper-table2 --reading NAME` per reading, from the supervised CNN and MLP of
# experiments/paper-cnn and experiments/paper-mlp, 100 evaluation positions, seed 1. Each
# reading's report, plot, self-play log, settings, probes and last model are kept here under NAME/; a
# reading whose report is already here is skipped, so the sweep resumes where it stopped.
# Usage: experiments/readings/sweep.sh [NAME...]   (default: every reading)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${STONELAB:-target/release/stonelab}
data=${DATA:-runs/values}
cnn=experiments/paper-cnn/checkpoints/last.safetensors
mlp=experiments/paper-mlp/checkpoints/last.safetensors
readings=("$@")
if [ ${#readings[@]} -eq 0 ]; then
  readings=(paper steps-1 frozen gated adam-carried adam-reset lr-1e-4 lr-1e-5 initial turn-zeroed depth-2 depth-4)
fi
[ -d "$data" ] || "$bin" data wthor --out "$data"
for r in "${readings[@]}"; do
  keep=experiments/readings/$r
  if [ -f "$keep/report.md" ]; then echo "$r: done"; continue; fi
  out=runs/readings/$r
  rm -rf "$out"
  start=$(date +%s)
  "$bin" reproduce paper-table2 --cnn "$cnn" --mlp "$mlp" --data "$data" --positions 100 \
    --games 40 --reading "$r" --quiet --out "$out"
  mkdir -p "$keep/probes"
  cp "$out"/report.md "$out"/*.png "$keep"/
  cp "$out"/runs/selfplay/log.csv "$out"/runs/selfplay/config.json "$keep"/
  cp "$out"/runs/selfplay/checkpoints/last.safetensors "$out"/runs/selfplay/checkpoints/last.json "$keep"/
  for p in "$out"/runs/selfplay/checkpoints/ep-*/probe.json; do
    [ -f "$p" ] && cp "$p" "$keep/probes/$(basename "$(dirname "$p")").json"
  done
  echo "$r: $(( $(date +%s) - start )) s" | tee -a experiments/readings/times.txt
done
