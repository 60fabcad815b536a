#!/usr/bin/env bash
# cnn-iteration against the paper-faithful self-play at the same training time (docs/paper.md,
# section 7): ITERATIONS of the stronger-than-paper run from the fair-split supervised CNN on
# one core (5 take 676 s, within the `paper` reading's 724 s: experiments/readings/paper); then
# it against the supervised CNN, and it, the paper reading's episode-200 network and the
# supervised CNN against `alphabeta:depth=4` and `othello:level=1`, from the balanced openings.
# Usage: experiments/iteration/measure.sh [ITERATIONS]   (resumes the run when it is there)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${STONELAB:-target/release/stonelab}
data=${DATA:-runs/values}
iterations=${1:-5}
out=experiments/iteration/run
[ -d "$data" ] || "$bin" data wthor --out "$data"
export RAYON_NUM_THREADS=1
if [ -f "$out/config.json" ]; then
  "$bin" train cnn-iteration --resume --out "$out" --episodes "$iterations" --threads 1
else
  "$bin" train cnn-iteration --from experiments/paper-cnn --data "$data" --out "$out" \
    --episodes "$iterations" --checkpoint-every 1 --eval-every "$iterations" --eval-games 2 --threads 1
fi
# Each pair from the balanced openings, colours swapped: cnn-iteration 100 games against each
# opponent, the paper reading's network and the supervised CNN 40 (their scores against the
# supervised CNN come from paper-table2's report).
iteration="cnn-minimax:model=$out/checkpoints/last.safetensors,depth=3"
paper="cnn-minimax:model=experiments/readings/paper/last.safetensors,depth=3"
supervised="cnn-minimax:model=experiments/paper-cnn/checkpoints/last.safetensors,depth=3"
: > experiments/iteration/arena.txt
pair() {
  "$bin" arena --threads 1 --games "$3" --seed 1 --quiet --agents "$1" "$2" \
    | tee -a experiments/iteration/arena.txt
}
pair "$iteration" "$supervised" 100
pair "$iteration" "alphabeta:depth=4" 100
pair "$iteration" "othello:level=1" 100
pair "$paper" "alphabeta:depth=4" 40
pair "$paper" "othello:level=1" 40
pair "$supervised" "alphabeta:depth=4" 40
pair "$supervised" "othello:level=1" 40
