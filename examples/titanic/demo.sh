#!/usr/bin/env bash
# The Titanic pipeline end to end on a fresh embedded lake (run by `make demo`):
# import the data, plan and run the project (SQL model f, Python models g and h with
# polars, fare_sum), show the outputs with their docs and lineage, and query the lake as
# it was before the run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
weir_bin="${WEIR_BIN:-$root/build/weir}"
export WEIR_PYTHON="${WEIR_PYTHON:-$root/.venv/bin/python}"
export WEIR_AUTHOR="${WEIR_AUTHOR:-demo}"
export WEIR_LAKE="${WEIR_DEMO_LAKE:-$(mktemp -d "${TMPDIR:-/tmp}/weir-demo-XXXXXX")/lake}"

bold=""
plain=""
if [ -t 1 ]; then
  bold=$(tput bold 2>/dev/null || true)
  plain=$(tput sgr0 2>/dev/null || true)
fi
weir() {
  # Shell-quoted, so that a shown command can be pasted back.
  local shown="" a
  for a in "$@"; do
    if [[ "$a" =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then shown+=" $a"
    else shown+=" '${a//\'/\'\\\'\'}'"; fi
  done
  printf '\n%s$ weir%s%s\n' "$bold" "$shown" "$plain"
  "$weir_bin" "$@"
}

cd "$here"
weir init "$WEIR_LAKE"
weir import data/titanic.csv --table titanic --contract project/contracts/titanic.yml
weir tables
before=$("$weir_bin" show main --json | "$WEIR_PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["hash"])')

weir check project
weir run project

weir describe f
weir describe h
weir describe fare_sum
weir tables
weir log -n 3

printf '\n%sThe lake as it was before the run (commit %s):%s\n' "$bold" "${before:0:12}" "$plain"
weir query "SELECT count(*) AS titanic_rows FROM titanic" --ref "$before"
weir tables --ref "$before"
weir query "SELECT * FROM fare_sum"
printf '\nThe demo lake is at %s\n' "$WEIR_LAKE"
