#!/usr/bin/env bash
# Installs everything weir needs on a fresh Debian 12 (bookworm) x86_64 machine.
#
#   scripts/bootstrap.sh          # idempotent; re-running is cheap
#
# What it installs, and why each source:
#   - Debian packages: compiler, CMake/Ninja, SQLite, libpq, jansson, libyaml, PCRE2,
#     OpenSSL, avro-c, libcurl (S3 metadata IO, docs/storage.md), libmicrohttpd (weir serve),
#     PostgreSQL server (for the catalog's PostgreSQL backend tests), JDK 17 and Maven (Spark
#     against weir serve),
#     clang 16 with libFuzzer (the fuzz targets).
#     spin (the model checker for the versioning model in model/, run by `make test`),
#     abigail-tools (abidw/abidiff: `make test` checks libweir's ABI against abi/libweir.abi),
#     jq (the docs' shell examples use it; tests/py/test_serializable.py runs them).
#   - DuckDB's C library and its header, one pinned version (DUCKDB_VERSION). Debian has
#     no DuckDB, so the shared library comes from the npm package that ships a complete
#     libduckdb.so (parquet and json built in), fetched with `npm pack`, and the header
#     from DuckDB's source distribution on PyPI (same version), fetched with
#     `pip download`. Both archives are checked against pinned SHA-256 sums before
#     anything is extracted. No registry address is written here: each client uses the
#     registry it is configured for.
#   - Iceberg's Spark runtime jar (weir serve's Spark acceptance tests), fetched with
#     Maven's `mvn dependency:get` into .deps/m2, pinned by SHA-256, copied to .deps/spark.
#   - A Python virtual environment in .venv with pinned packages (python/requirements-dev.txt):
#     pyarrow, polars, pyiceberg, DuckDB's Python package and extensions of the same
#     version (iceberg, avro, tpch, ducklake), pytest, pyright.
#
# Everything lands inside the repository (.deps/, .venv/), so nothing of weir is written
# outside it except Debian packages. Set WEIR_SKIP_APT=1 to skip apt (for machines where
# the packages are already present and you are not root).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

DUCKDB_VERSION=1.5.5
DUCKDB_NPM_PACKAGE="@duckdb/node-bindings-linux-x64@${DUCKDB_VERSION}-r.5"
DUCKDB_NPM_SHA256=86d2bda909785550e8a14a57a8a4584827aff0e268d8f1a58c3fd48559f7020e
DUCKDB_SDIST_SHA256=72f33ee57ca7595b23957671a2cc7f7fe2be0ecc2d68f63abedcfcaa3a5c1238

# The fuzz targets (make fuzz, docs/fuzzing.md) need clang with libFuzzer. Debian 12's
# `clang` is clang 14, while its libFuzzer package is libfuzzer-16-dev: the fuzzers use
# clang-16, whose `-fsanitize=fuzzer` links libclang_rt.fuzzer from libclang-rt-16-dev
# (with ASan and UBSan runtimes); libfuzzer-16-dev is the same libFuzzer as a standalone
# archive, for linking by hand. llvm-16 brings llvm-symbolizer, so reports show source
# lines.
APT_PACKAGES=(build-essential cmake ninja-build pkg-config curl ca-certificates
  libsqlite3-dev libjansson-dev libyaml-dev libpcre2-dev libssl-dev libpq-dev
  libavro-dev zlib1g-dev libcurl4-openssl-dev libmicrohttpd-dev postgresql valgrind spin abigail-tools jq
  clang-16 libclang-rt-16-dev libfuzzer-16-dev llvm-16
  openjdk-17-jre-headless maven)

say() { printf 'bootstrap: %s\n' "$*" >&2; }
die() { printf 'bootstrap: error: %s\n' "$*" >&2; exit 1; }

[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || die "only Linux x86_64 is supported (found $(uname -s)-$(uname -m))"

# --- Debian packages -----------------------------------------------------------------
if [ "${WEIR_SKIP_APT:-0}" != 1 ]; then
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  if ! python3 -m venv --help >/dev/null 2>&1; then missing+=(python3-venv); fi
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

# --- DuckDB C library and header ----------------------------------------------------------
# The Python environment comes first: its pip fetches the header's source archive.
if [ ! -x "$root/.venv/bin/python" ]; then
  say "creating .venv"
  python3 -m venv "$root/.venv"
fi
verify() { # file sha256
  [ -f "$1" ] && echo "$2  $1" | sha256sum -c --status
}
fetch_npm() { # package sha256 dest
  local pkg=$1 sum=$2 dest=$3 tmp
  verify "$dest" "$sum" && return 0
  command -v npm >/dev/null 2>&1 || die "npm is needed to fetch $pkg (install Node.js and npm)"
  say "fetching $pkg with npm pack"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$pkg" >/dev/null) || die "npm pack $pkg failed"
  mv "$tmp"/*.tgz "$dest.part" && rm -rf "$tmp"
  verify "$dest.part" "$sum" || die "checksum mismatch for $pkg (expected $sum)"
  mv "$dest.part" "$dest"
}
fetch_sdist() { # name==version sha256 dest
  local spec=$1 sum=$2 dest=$3 tmp
  verify "$dest" "$sum" && return 0
  say "fetching the source archive of $spec with pip download"
  tmp=$(mktemp -d)
  "$root/.venv/bin/python" -m pip download -q --no-deps --no-binary "${spec%%==*}" "$spec" -d "$tmp" >/dev/null \
    || die "pip download $spec failed"
  mv "$tmp"/*.tar.gz "$dest.part" && rm -rf "$tmp"
  verify "$dest.part" "$sum" || die "checksum mismatch for $spec (expected $sum)"
  mv "$dest.part" "$dest"
}

ddir="$root/.deps/duckdb-$DUCKDB_VERSION"
if [ ! -f "$ddir/.complete" ]; then
  mkdir -p "$root/.deps/cache" "$ddir/lib" "$ddir/include"
  fetch_npm "$DUCKDB_NPM_PACKAGE" "$DUCKDB_NPM_SHA256" "$root/.deps/cache/duckdb-lib-$DUCKDB_VERSION.tgz"
  fetch_sdist "duckdb==$DUCKDB_VERSION" "$DUCKDB_SDIST_SHA256" "$root/.deps/cache/duckdb-$DUCKDB_VERSION.tar.gz"
  tar -xzf "$root/.deps/cache/duckdb-lib-$DUCKDB_VERSION.tgz" -C "$ddir/lib" --strip-components=1 package/libduckdb.so
  tar -xzf "$root/.deps/cache/duckdb-$DUCKDB_VERSION.tar.gz" -C "$ddir/include" --strip-components=5 \
    "duckdb-$DUCKDB_VERSION/external/duckdb/src/include/duckdb.h"
  # The library and the header must be the same release: check by compiling against both.
  tmp=$(mktemp -d)
  printf '#include "duckdb.h"\n#include <stdio.h>\nint main(void){puts(duckdb_library_version());return 0;}\n' > "$tmp/v.c"
  cc "$tmp/v.c" -I"$ddir/include" -L"$ddir/lib" -lduckdb -Wl,-rpath,"$ddir/lib" -o "$tmp/v"
  got=$("$tmp/v")
  rm -rf "$tmp"
  [ "$got" = "v$DUCKDB_VERSION" ] || die "libduckdb.so reports $got, expected v$DUCKDB_VERSION"
  touch "$ddir/.complete"
fi
ln -sfn "duckdb-$DUCKDB_VERSION" "$root/.deps/duckdb"

# --- DuckDB's httpfs extension, for s3:// warehouses (docs/storage.md) ---------------------
# libweir LOADs it from .deps/duckdb/extensions (never downloads at run time). It comes
# from its PyPI package (the same build the Python tests load), fetched with
# `pip download` and checked against a pinned SHA-256 before it is unpacked.
HTTPFS_WHEEL="duckdb_extension_httpfs-${DUCKDB_VERSION}-py3-none-manylinux2014_x86_64.whl"
HTTPFS_WHEEL_SHA256=84913dbe172ccb54368de2c4a020c38ca8b0e76f99df548f7fac37934cc7826f
if [ ! -f "$ddir/extensions/httpfs.duckdb_extension" ]; then
  cache="$root/.deps/cache/$HTTPFS_WHEEL"
  if ! verify "$cache" "$HTTPFS_WHEEL_SHA256"; then
    say "fetching duckdb-extension-httpfs==$DUCKDB_VERSION with pip download"
    tmp=$(mktemp -d)
    "$root/.venv/bin/python" -m pip download -q --no-deps --only-binary :all: \
      "duckdb-extension-httpfs==$DUCKDB_VERSION" -d "$tmp" >/dev/null || die "pip download duckdb-extension-httpfs failed"
    mv "$tmp/$HTTPFS_WHEEL" "$cache.part" && rm -rf "$tmp"
    verify "$cache.part" "$HTTPFS_WHEEL_SHA256" || die "checksum mismatch for $HTTPFS_WHEEL (expected $HTTPFS_WHEEL_SHA256)"
    mv "$cache.part" "$cache"
  fi
  mkdir -p "$ddir/extensions"
  "$root/.venv/bin/python" - "$cache" "$ddir/extensions" "$DUCKDB_VERSION" <<'PY'
import sys, zipfile
wheel, dest, version = sys.argv[1:]
name = f"duckdb_extension_httpfs/extensions/v{version}/httpfs.duckdb_extension"
with zipfile.ZipFile(wheel) as z, open(f"{dest}/httpfs.duckdb_extension.part", "wb") as out:
    out.write(z.read(name))
PY
  mv "$ddir/extensions/httpfs.duckdb_extension.part" "$ddir/extensions/httpfs.duckdb_extension"
fi

# --- Iceberg's jars for Spark (the `weir serve` acceptance tests run Spark against it) ----
# Fetched by Maven from the repository it is configured for (strict checksums), into a
# local repository inside .deps, then pinned by SHA-256 like every other download.
maven_jar() { # group artifact version sha256: into .deps/spark/ARTIFACT-VERSION.jar
  local group=$1 artifact=$2 version=$3 sha=$4
  local jar="$root/.deps/spark/$artifact-$version.jar" coords="$group:$artifact:$version"
  verify "$jar" "$sha" && return 0
  command -v mvn >/dev/null 2>&1 || die "mvn is needed to fetch $coords (Debian package maven)"
  say "fetching $coords with mvn dependency:get"
  mkdir -p "$root/.deps/m2" "$root/.deps/spark"
  mvn -q -B -C dependency:get -Dmaven.repo.local="$root/.deps/m2" -Dartifact="$coords" \
    -Dtransitive=false >/dev/null || die "mvn dependency:get $coords failed"
  cp "$root/.deps/m2/${group//.//}/$artifact/$version/$artifact-$version.jar" "$jar.part"
  verify "$jar.part" "$sha" || die "checksum mismatch for $coords"
  mv "$jar.part" "$jar"
}
# The Spark runtime (the REST catalog client and Spark's Iceberg support).
maven_jar org.apache.iceberg iceberg-spark-runtime-3.5_2.12 1.10.0 \
  70f9471870b2d456167d703c829f098a446b86bb1379eee338c0efa03a341026
# The AWS bundle (S3FileIO and the AWS SDK it uses): Spark reads and writes the data of a
# lake whose warehouse is on S3 through it (tests/py/test_serve_spark.py, pg-s3).
maven_jar org.apache.iceberg iceberg-aws-bundle 1.10.0 \
  172370cfc32a5f1ae5399b210e86fc04a366dc29a112d97ac8ffc74df7525596

# --- Python environment -------------------------------------------------------------------
req="$root/python/requirements-dev.txt"
stamp="$root/.venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  say "installing Python packages from $req"
  "$root/.venv/bin/python" -m pip install -q --upgrade pip >/dev/null
  "$root/.venv/bin/python" -m pip install -q -r "$req"
  echo "$want" > "$stamp"
fi
# The SDK itself, editable, so `import weir` works in .venv and follows the sources. It
# finds libweir in the build tree (build/libweir.so) or through $WEIR_LIBRARY. "compat"
# mode puts a plain path in a .pth file, which type checkers (pyright) can follow; the
# default mode's import hook hides the package from them.
sdk_stamp="$root/.venv/.weir-sdk-compat"
if [ ! -f "$sdk_stamp" ] || ! "$root/.venv/bin/python" -c 'import weir' >/dev/null 2>&1; then
  say "installing the weir Python SDK (editable) from python/"
  # setuptools warns at length that compat mode is deprecated (it is what type checkers
  # need, see above): its output is shown only if the install fails.
  log="$root/.venv/.weir-sdk-install.log"
  if ! "$root/.venv/bin/python" -m pip install -q --no-deps -e "$root/python" \
       --config-settings editable_mode=compat >"$log" 2>&1; then
    cat "$log" >&2
    die "installing the weir Python SDK failed (log above)"
  fi
  touch "$sdk_stamp"
fi
say "ready (DuckDB v$DUCKDB_VERSION in .deps/duckdb, Python in .venv)"
