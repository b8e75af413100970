#!/usr/bin/env bash
# Model-checks weir's versioning semantics (model/weir.pml) with spin; run by `make test`.
#
#   model/check.sh            every check below; exit 0 only if all pass
#   model/check.sh -v         also print each counterexample's trace
#   SHORTEST=1 model/check.sh -v   ... the shortest trace of each (pan -i; minutes)
#
# 1. The model with every guard: no errors in an exhaustive search of the conjunction of
#    the named properties (each an invariant; on an error, each is searched on its own to
#    name it), and in one search without any claim (no assertion of the model's own
#    bounds fails, no deadlock).
# 2. Each broken variant (one guard removed, -D...): spin finds a counterexample, and
#    the error trail, replayed, ends at the violation of the property the variant is
#    about (the failed assertion names its monitor flag).
# 3. Witnesses (-DWITNESS): each event the guards are about is reachable in the correct
#    model, so no property holds only because nothing happens.
#
# Everything is built in a temporary directory (pan.c, pan, trails), compiled with the
# machine's cc (CC overrides it) with warnings as errors.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
verbose=0
[ "${1:-}" = "-v" ] && verbose=1
CC=${CC:-cc}

die() { printf 'model: error: %s\n' "$*" >&2; exit 1; }
command -v spin >/dev/null 2>&1 || die "spin is not installed (scripts/bootstrap.sh installs the Debian package)"
command -v "$CC" >/dev/null 2>&1 || die "no C compiler ($CC)"

work=$(mktemp -d "${TMPDIR:-/tmp}/weir-model.XXXXXX")
trap 'rm -rf "$work"' EXIT

PROPERTIES=(NoLostUpdate NoStalePublication MainCleanFromFailedRuns RunAtomicityAcrossRevert
            ContractNeverRegresses RowsMatchContract RunPublishesAllOutputs CompactionChangesNoRow)

# variant (the define) and the properties it must break (comma-separated)
VARIANTS=(
  "BROKEN_NO_CAS                   NoLostUpdate"
  "BROKEN_NO_TABLE_CHECK           NoLostUpdate"
  "BROKEN_NO_READSET_CHECK         NoStalePublication"
  "BROKEN_MERGE_BASE_ONLY          RunPublishesAllOutputs,NoStalePublication"
  "BROKEN_NO_ABORTED_CHECK         MainCleanFromFailedRuns"
  "BROKEN_NO_REVERT_TARGET_CHECK   MainCleanFromFailedRuns"
  "BROKEN_NO_RUN_REVERT_GUARD      RunAtomicityAcrossRevert"
  "BROKEN_REVERT_RUN_SPLIT         RunAtomicityAcrossRevert"
  "LITERAL_REVERT_RULE             RunAtomicityAcrossRevert"
  "BROKEN_REVERT_RESTORES_CONTRACT ContractNeverRegresses"
  "BROKEN_APPEND_ANY_CONTRACT      RowsMatchContract"
  "BROKEN_MERGE_ANY_CHANGE         RowsMatchContract"
  "BROKEN_COMPACT_FROM_BASE        CompactionChangesNoRow,NoLostUpdate"
  "BROKEN_COMPACT_NO_FILE_CHECK    CompactionChangesNoRow"
)

WITNESSES=(PublishAfterMainMoved PublishRefusedStale PublishRefusedConflict LeakRefused
           PartialMergeAccepted AppendRebased AppendRefused ReplaceConflict RevertRefusedRun
           RevertRefusedContract RevertRun AppendsMerged CompactRebased CompactRefused WriteOverCompaction
           AppendsMergedOverCompaction)

# pan's options: -w20, a hash table of 2^20 slots (the model has ~0.6M states; collapse
# compression keeps them in ~60 MB); -m depth bound far above the ~90 steps any run of
# the model takes (checked below: reaching it is an error, -b).
PAN_OPTS=(-w20 -m2000 -b)

fail() { printf 'FAIL  %s\n' "$*"; }

# build NAME [CFLAG...] [-- SPIN_DEFINE...]: $work/NAME/pan from weir.pml. The correct
# model, searched in full seven times, is compiled with -O1; the others with -O0, which
# compiles pan.c four times faster and their searches mostly stop early.
build() {
  local name=$1; shift
  local cflags=() defs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do cflags+=("$1"); shift; done
  [ "${1:-}" = "--" ] && shift
  defs=("$@")
  local d="$work/$name"
  mkdir -p "$d"
  cp "$here/weir.pml" "$d/"
  (cd "$d" && spin "${defs[@]}" -a weir.pml >spin.log 2>&1) || { cat "$d/spin.log"; fail "spin -a failed for $name"; return 1; }
  # pan -i (the searches for a counterexample, with SHORTEST=1) needs -DREACH
  if [ "${SHORTEST:-0}" = 1 ] && [ "$name" != correct ] && [ "$name" != noclaim ]; then cflags+=(-DREACH); fi
  (cd "$d" && "$CC" -Werror -DSAFETY -DCOLLAPSE "${cflags[@]}" -o pan pan.c 2>cc.log) ||
    { cat "$d/cc.log"; fail "compiling pan failed for $name"; return 1; }
}

errors_of() { sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' "$1" | tail -1; }
stored_of() { sed -n 's/^ *\([0-9][0-9]*\) states, stored.*/\1/p' "$1" | tail -1; }
secs_of()   { sed -n 's/^pan: elapsed time \([0-9.e+-]*\) seconds.*/\1/p' "$1" | tail -1; }

# A search that must end with no error, having explored everything.
expect_clean() { # dir label [pan args...]
  local d=$1 label=$2; shift 2
  local out="$d/$label.out"
  (cd "$d" && ./pan "${PAN_OPTS[@]}" "$@" >"$out" 2>&1) || true
  local e; e=$(errors_of "$out")
  if [ "$e" != 0 ]; then
    fail "$label: expected no errors, pan says errors: ${e:-?}"; sed -n '1,20p' "$out"; return 1
  fi
  if grep -q -e "max search depth too small" -e "out of memory" -e "search not completed" "$out"; then
    fail "$label: the search was not exhaustive"; grep -e depth -e memory "$out"; return 1
  fi
  printf 'ok    %-62s %9s states  %5ss\n' "$label: no errors" "$(stored_of "$out")" "$(secs_of "$out")"
}

# A search that must find a violation of claim NAME, flagged by monitor flag FLAG.
expect_violation() { # dir label claim flag defines...
  local d=$1 label=$2 claim=$3 flag=$4; shift 4
  local out="$d/$claim.out"
  rm -f "$d/weir.pml.trail"
  local extra=()
  [ "${SHORTEST:-0}" = 1 ] && extra=(-i)
  (cd "$d" && ./pan "${PAN_OPTS[@]}" "${extra[@]}" -N "$claim" >"$out" 2>&1) || true
  local e; e=$(errors_of "$out")
  if [ "${e:-0}" = 0 ] || [ ! -f "$d/weir.pml.trail" ]; then
    fail "$label: expected a counterexample to $claim, spin found none"; sed -n '1,20p' "$out"; return
  fi
  if ! grep -q "^pan: ltl formula $claim\$" "$out" || ! grep -q "assertion violated.*($flag)" "$out"; then
    fail "$label: the error is not a violation of $claim"; grep -e "pan:" "$out" | head -5; return
  fi
  # Replay the trail: it must end at the never claim's assertion on the same flag.
  (cd "$d" && spin -T "$@" -t weir.pml >"$d/$claim.trace" 2>&1) || true
  # (pan -i's shortened trails replay up to the step before the claim's own assertion)
  if [ "${SHORTEST:-0}" != 1 ] && ! grep -q "text of failed assertion: assert(.*($flag)" "$d/$claim.trace"; then
    fail "$label: the replayed trail does not end at $claim"; tail -5 "$d/$claim.trace"; return
  fi
  local steps; steps=$(sed -n 's/^spin: trail ends after \([0-9]*\) steps/\1/p' "$d/$claim.trace")
  printf 'ok    %-62s %9s states  %5ss  (trail: %s steps)\n' "$label: counterexample" \
    "$(stored_of "$out")" "$(secs_of "$out")" "$steps"
  if [ "$verbose" = 1 ]; then grep '^@@' "$d/$claim.trace" | sed 's/^@@/        /'; fi
}

start=$(date +%s)

# Tasks run JOBS at a time (default 2), each printing into its own log; the logs are
# shown in order at the end.
JOBS=${JOBS:-2}
ntask=0
task() { # function args...: runs in the background
  ntask=$((ntask + 1))
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  ( "$@" ) >"$work/task.$ntask.log" 2>&1 &
}

# 1. The correct model.
check_correct() {
  build correct -O1
  if ! expect_clean "$work/correct" "AllProperties (${#PROPERTIES[@]} properties)" -N AllProperties; then
    # say which
    for p in "${PROPERTIES[@]}"; do expect_clean "$work/correct" "$p" -N "$p" || true; done
  fi
}
check_noclaim() {
  build noclaim -O1 -DNOCLAIM
  expect_clean "$work/noclaim" "no claim: model bounds, end states"
}
# 2. A broken variant.
check_variant() { # define properties
  build "$1" -- "-D$1"
  local p
  for p in ${2//,/ }; do expect_violation "$work/$1" "$1 -> $p" "$p" "viol_$p" "-D$1"; done
}
# 3. Witnesses.
check_witnesses() {
  build witness -- -DWITNESS
  for w in "${WITNESSES[@]}"; do
    expect_violation "$work/witness" "reachable: $w" "Witness_$w" "saw_$w" -DWITNESS
  done
}

task check_correct
task check_noclaim
for v in "${VARIANTS[@]}"; do
  read -r def prop <<<"$v"
  task check_variant "$def" "$prop"
done
task check_witnesses
wait

for i in $(seq 1 "$ntask"); do cat "$work/task.$i.log"; done
failures=$(cat "$work"/task.*.log | grep -c '^FAIL' || true)
elapsed=$(( $(date +%s) - start ))
if [ "$failures" -gt 0 ]; then
  printf 'model: %d check(s) failed (%ss)\n' "$failures" "$elapsed"
  exit 1
fi
printf 'model: all checks passed (%ss)\n' "$elapsed"
