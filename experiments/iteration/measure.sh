#!/usr/bin/env bash
# cnn-iteration against the paper-faithful self-play at the same training time (docs/paper.md,
# section 7): the stronger-than-paper run from the fair-split supervised CNN on one core, until
# its training time passes the `paper` reading's (experiments/readings/paper: 724 s on one core);
# then a round robin of it, the paper reading's episode-200 network, the supervised CNN,
# `alphabeta:depth=4` and `othello:level=1` from the balanced openings, colours swapped.
# Usage: experiments/iteration/measure.sh [ITERATIONS]   (resumes the run when it is there)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${STONELAB:-target/release/stonelab}
data=${DATA:-runs/values}
iterations=${1:-3}
out=experiments/iteration/run
[ -d "$data" ] || "$bin" data wthor --out "$data"
export RAYON_NUM_THREADS=1
if [ -f "$out/config.json" ]; then
  "$bin" train cnn-iteration --resume --out "$out" --episodes "$iterations" --threads 1
else
  "$bin" train cnn-iteration --from experiments/paper-cnn --data "$data" --out "$out" \
    --episodes "$iterations" --checkpoint-every 1 --eval-every "$iterations" --threads 1
fi
"$bin" arena --threads 1 --games 100 --seed 1 --force --json experiments/iteration/arena.json \
  --agents "cnn-minimax:model=$out/checkpoints/last.safetensors,depth=3" \
  "cnn-minimax:model=experiments/readings/paper/last.safetensors,depth=3" \
  "cnn-minimax:model=experiments/paper-cnn/checkpoints/last.safetensors,depth=3" \
  "alphabeta:depth=4" "othello:level=1" | tee experiments/iteration/arena.txt
