#!/usr/bin/env bash
# Regenerates the seeds of tests/fuzz/corpus/ that weir itself writes: the contract IR of
# the example contracts, and the metadata files, manifests and manifest lists of a small
# lake (the Titanic import, an append, a replace through a contract, an empty table).
# The hand-written seeds (YAML contracts, SQL headers, refs, CSV inputs) are kept as
# they are. Run from the repository after `make build`:
#
#   tests/fuzz/make_corpus.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
weir="$root/${1:-build}/weir"
[ -x "$weir" ] || { echo "make_corpus: $weir not found (make build first)" >&2; exit 1; }
corpus="$root/tests/fuzz/corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export WEIR_LAKE="$work/lake"
"$weir" init "$WEIR_LAKE" >/dev/null

# Contract IR: what `weir describe --json` records for a table written through a contract,
# and the IR of each seed YAML contract that loads.
contract="$root/examples/titanic/project/contracts/titanic.yml"
head -n 31 "$root/examples/titanic/data/titanic.csv" > "$work/titanic.csv"
"$weir" import "$work/titanic.csv" --table titanic --contract "$contract" >/dev/null
tail -n 5 "$root/examples/titanic/data/titanic.csv" > "$work/rows.csv"
{ head -n 1 "$work/titanic.csv"; cat "$work/rows.csv"; } > "$work/more.csv"
"$weir" import "$work/more.csv" --table titanic --mode append >/dev/null
printf 'a,b\n1,x\n2,\n' > "$work/small.csv"
"$weir" import "$work/small.csv" --table small >/dev/null
"$weir" import "$work/small.csv" --table small --mode replace >/dev/null
printf 'a\n' > "$work/empty.csv"
"$weir" import "$work/empty.csv" --table empty >/dev/null

"$weir" describe titanic --json | "$root/.venv/bin/python" -c '
import json, sys
d = json.load(sys.stdin)
c = d.get("contract")
json.dump(c, open(sys.argv[1], "w"), indent=1)
' "$corpus/contract_ir/titanic.json"

# Table files: every metadata.json, manifest and manifest list of the lake.
n=0
for f in $(find "$WEIR_LAKE" -name '*.metadata.json' | sort); do
  n=$((n + 1)); install -m 644 "$f" "$corpus/metadata_json/lake-$n.json"
done
n=0
for f in $(find "$WEIR_LAKE" -name '*.avro' | sort); do
  n=$((n + 1))
  case "$(basename "$f")" in
    snap-*) install -m 644 "$f" "$corpus/avro_manifest/list-$n.avro" ;;
    *) install -m 644 "$f" "$corpus/avro_manifest/manifest-$n.avro" ;;
  esac
done
# A deflate-codec copy of a manifest (the codec Java and pyiceberg write): the same header
# with avro.codec deflate, each block's records compressed (raw RFC 1951).
"$root/.venv/bin/python" - "$corpus/avro_manifest/manifest-2.avro" "$corpus/avro_manifest/deflate-manifest.avro" <<'PY'
import sys, zlib
data = open(sys.argv[1], "rb").read()
def varint(b, i):
    shift = z = 0
    while True:
        c = b[i]; i += 1; z |= (c & 0x7F) << shift; shift += 7
        if not c & 0x80: return (z >> 1) ^ -(z & 1), i
def put(v):
    z = (v << 1) ^ (v >> 63); out = bytearray()
    while z & ~0x7F: out.append((z & 0x7F) | 0x80); z >>= 7
    out.append(z); return bytes(out)
i = 4; meta = {}
while True:
    n, i = varint(data, i)
    if n == 0: break
    for _ in range(abs(n)):
        kl, i = varint(data, i); k = data[i:i + kl]; i += kl
        vl, i = varint(data, i); v = data[i:i + vl]; i += vl; meta[k] = v
sync = data[i:i + 16]; i += 16
meta[b"avro.codec"] = b"deflate"
out = bytearray(b"Obj\x01") + put(len(meta))
for k, v in meta.items(): out += put(len(k)) + k + put(len(v)) + v
out += put(0) + sync
while i < len(data):
    count, i = varint(data, i); size, i = varint(data, i)
    c = zlib.compressobj(9, zlib.DEFLATED, -15); block = c.compress(data[i:i + size]) + c.flush()
    out += put(count) + put(len(block)) + block + sync; i += size + 16
open(sys.argv[2], "wb").write(out)
PY
# Neutral paths: the lake was a temporary folder.
sed -i "s|$work/lake|/lake|g" "$corpus"/metadata_json/lake-*.json
du -sh "$corpus"
