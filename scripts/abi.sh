#!/usr/bin/env bash
# libweir's ABI, checked against the committed baseline abi/libweir.abi (libabigail,
# Debian abigail-tools, installed by scripts/bootstrap.sh).
#
#   scripts/abi.sh check [BUILD]    # make test-abi: abidiff of BUILD/libweir.so (default
#                                   # build) against the baseline; any difference fails
#   scripts/abi.sh update [BUILD]   # make abi-update: write the baseline from BUILD
#
# Only what the public headers (include/, and the generated weir_version.h) declare is
# the ABI: private types and unexported functions are dropped, so a change inside the
# library is not an ABI change, while a field added to an options struct, a changed
# signature, or a function added or removed is. Such a change is deliberate: update the
# baseline in the same commit (CONTRIBUTING.md, "Changing the public API").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-check}
build=$(cd "${2:-$root/build}" && pwd)
lib="$build/libweir.so"
baseline="$root/abi/libweir.abi"
[ -f "$lib" ] || { echo "abi: $lib is not built" >&2; exit 1; }
command -v abidw >/dev/null || { echo "abi: abidw not found (install abigail-tools: scripts/bootstrap.sh)" >&2; exit 1; }
headers=(--headers-dir "$root/include" --headers-dir "$build/include")
case "$cmd" in
  update)
    mkdir -p "$root/abi"
    abidw "${headers[@]}" --drop-private-types --exported-interfaces-only --no-corpus-path --no-comp-dir-path \
      --no-show-locs --type-id-style hash "$lib" --out-file "$baseline.tmp"
    # Source paths of this checkout say nothing about the ABI: keep them relative.
    sed "s|path='$root/|path='|g" "$baseline.tmp" > "$baseline"
    rm -f "$baseline.tmp"
    echo "abi: wrote $baseline"
    ;;
  check)
    [ -f "$baseline" ] || { echo "abi: no baseline $baseline (make abi-update)" >&2; exit 1; }
    if ! abidiff --headers-dir2 "$root/include" --headers-dir2 "$build/include" --drop-private-types \
         --exported-interfaces-only "$baseline" "$lib"; then
      echo "abi: libweir's ABI differs from abi/libweir.abi (above). If the change is meant, run" \
           "'make abi-update' and commit the new baseline with it (CONTRIBUTING.md)." >&2
      exit 1
    fi
    echo "abi: libweir matches abi/libweir.abi"
    ;;
  *) echo "usage: scripts/abi.sh check|update [BUILD]" >&2; exit 2 ;;
esac
