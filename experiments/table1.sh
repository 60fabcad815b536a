#!/usr/bin/env bash
# Table 1 of docs/paper.md at the paper's 1,000 positions per colour, for the supervised pairs of
# each split kept here (experiments/paper-cnn + paper-mlp: frequency; paper-cnn-game +
# paper-mlp-game: game; paper-cnn3 + paper-mlp: the three-convolution long run), each report
# kept as experiments/table1/NAME.md. Usage: experiments/table1.sh [frequency|game|cnn3 ...]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${STONELAB:-target/release/stonelab}
data=${DATA:-runs/values}
[ -d "$data" ] || "$bin" data wthor --out "$data"
mkdir -p experiments/table1
[ $# -gt 0 ] || set -- frequency game
for split in "$@"; do
  case $split in
    frequency) cnn=paper-cnn; mlp=paper-mlp ;;
    game) cnn=paper-cnn-game; mlp=paper-mlp-game ;;
    cnn3) cnn=paper-cnn3; mlp=paper-mlp ;;
    *) echo "unknown pair $split (frequency, game, cnn3)" >&2; exit 2 ;;
  esac
  start=$(date +%s)
  "$bin" reproduce paper-table1 --cnn "experiments/$cnn/checkpoints/last.safetensors" \
    --mlp "experiments/$mlp/checkpoints/last.safetensors" --data "$data" --quiet --force \
    --out "runs/table1-$split"
  sed "s/(table1.png)/($split.png)/" "runs/table1-$split/report.md" > "experiments/table1/$split.md"
  cp "runs/table1-$split/table1.png" "experiments/table1/$split.png"
  echo "$split: $(( $(date +%s) - start )) s" | tee -a experiments/table1/times.txt
done
