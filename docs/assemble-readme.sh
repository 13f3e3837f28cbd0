#!/usr/bin/env bash
# Rebuilds README.md from docs/readme-head.md and the per-area sections in
# docs/readme/ (each area keeps its own section next to the code it documents).
set -euo pipefail
cd "$(dirname "$0")/.."
{
  cat docs/readme-head.md
  echo
  echo "# Reference, by area"
  for f in datasets llm dialogue episodes-stage plugins judge-stages results trainer-model trainer-training tokenizer training-stages serve ui chat slurm; do
    [ -f "docs/readme/$f.md" ] || continue
    echo
    sed -e 's/^# /## /' "docs/readme/$f.md"
  done
} > README.md
