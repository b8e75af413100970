#!/usr/bin/env bash
# Reproduces the callgrind profiles of bench/README.md ("Where weir is slow") and writes
# the top inclusive functions of each to bench/profiles/<name>.txt.
#
#   bench/profile.sh [WORKDIR]        # default: a temporary folder; needs `make build`
#                                     # and bench/.data/tpch-sf0.1 (made by the quick tier)
#
# callgrind is deterministic (instruction counts), so these numbers do not depend on the
# load of the machine; perf is not usable in this VM (no hardware counters).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD="${WEIR_BUILD_DIR:-$root/build}"
W="$BUILD/weir"
export WEIR_LIBRARY="${WEIR_LIBRARY:-$BUILD/libweir.so}"
PY="$root/.venv/bin/python"
work=${1:-$(mktemp -d)}
out="$root/bench/profiles"
mkdir -p "$work" "$out"
cd "$work"
[ -f "$root/bench/.data/tpch-sf0.1/.complete" ] || "$PY" -c "
import sys; sys.path.insert(0, '$root/bench')
from scenarios.pipeline import tpch_dir; tpch_dir(0.1)"

summary() { # name
  callgrind_annotate --inclusive=yes "cg.$1.out" 2>/dev/null | grep -v '^-- Auto-annotated\|=> \|^ *$' \
    | grep -v 'python-build\|libpython' | sed -n 1,75p | cut -c1-220 > "$out/$1.txt"
}
cg() { # name command...
  local name=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="cg.$name.out" "$@" > /dev/null 2> "cg.$name.err"
  summary "$name"
}

# 1. A lake of 10 small tables; t0003 gets 300 appends (300 Iceberg snapshots).
rm -rf lake && "$PY" - <<EOF
import sys; sys.path.insert(0, "$root/bench")
import weir, pyarrow.parquet as pq
from scenarios.catalog import small_table, tname
c = weir.Client.init("$work/lake")
s = small_table(); pq.write_table(s, "$work/small.parquet")
first = c.import_data("t0000", s).commit
for i in range(1, 10): c.import_data(tname(i), s)
for k in range(300): c.import_data("t0003", s, mode="append")
open("$work/first.txt", "w").write(first)
EOF
export WEIR_LAKE=$work/lake
cg help "$W" --help
cg import1 "$W" import small.parquet --table t0005 --mode append
cg import300 "$W" import small.parquet --table t0003 --mode append
cg query "$W" query "SELECT * FROM t0000" --ref "$(cat first.txt)" --format csv

# 2. The five-model TPC-H project at SF 0.1.
rm -rf lk3 && "$W" init lk3 > /dev/null
export WEIR_LAKE=$work/lk3
for t in orders lineitem customer nation; do "$W" import "$root/bench/.data/tpch-sf0.1/$t.parquet" --table $t > /dev/null; done
"$PY" -c "import sys; sys.path.insert(0, '$root/bench')
from scenarios.pipeline import weir_project; weir_project('$work/proj')"
"$W" run "$work/proj" > /dev/null   # warm
cg run "$W" run "$work/proj"
# DuckDB's worker threads poll for tasks, which callgrind (one thread at a time) inflates:
# one thread gives the inclusive costs of weir's own functions without that noise.
WEIR_THREADS=1 cg run-1thread "$W" run "$work/proj"

# 3. weir_scan of lineitem (the Python model input path), twice.
rm -rf lk2 && "$W" init lk2 > /dev/null
WEIR_LAKE=$work/lk2 "$W" import "$root/bench/.data/tpch-sf0.1/lineitem.parquet" --table lineitem > /dev/null
cat > scan_only.py <<EOF
import ctypes, weir
from weir import _ffi
c = weir.Client(lake="$work/lk2")
for i in range(2):
    s = _ffi.ArrowArrayStream()
    c._lib.call("weir_scan", c._h(), b"lineitem", b"main", None, ctypes.byref(s))
    t = _ffi.import_stream(s).read_all()
EOF
cg scan "$PY" scan_only.py

# 4. Validator kernels.
for s in range cast_int; do
  cg "val.$s" "$BUILD/bench_validate" --rows 2000000 --repeat 1 --only $s
done
echo "profiles: $out (callgrind files in $work)"
