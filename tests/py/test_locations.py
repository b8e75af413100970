"""Locations in Iceberg metadata are full URIs (storage/location.h): a lake whose path has
a space works for weir, pyiceberg and DuckDB; lakes written before (scheme-less paths)
still read and take new writes; paths readers would misread are refused."""
from __future__ import annotations

import glob
import importlib
import json
import os
import pathlib

import pytest

from conftest import TITANIC, weir, weir_list

pytestmark = pytest.mark.cli


def _count(lake, sql):
    r = weir("query", sql, "--format", "json", lake=lake)
    assert r.returncode == 0, r.stderr
    return list(json.loads(r.stdout)[0].values())[0]


def _duckdb():
    import duckdb

    con = duckdb.connect()
    for name in ("avro", "iceberg"):
        mod = importlib.import_module(f"duckdb_extension_{name}")
        (ext,) = glob.glob(os.path.join(os.path.dirname(mod.__file__), "extensions", "*", f"{name}.duckdb_extension"))
        con.execute(f"LOAD '{ext}'")
    return con


def test_a_lake_path_with_a_space(tmp_path):
    from pyiceberg.table import StaticTable

    lake = tmp_path / "my lake (2024)"
    assert weir("init", lake).returncode == 0
    assert weir("import", TITANIC, "--table", "titanic", lake=lake).returncode == 0
    assert weir("import", TITANIC, "--table", "titanic", "--mode", "append", lake=lake).returncode == 0
    assert _count(lake, "SELECT count(*) FROM titanic") == 1782
    meta = weir_list("tables", lake=lake)[0]["metadata_location"]
    doc = json.loads(pathlib.Path(meta).read_text())
    assert doc["location"] == f"file://{lake}/warehouse/default/titanic"
    assert doc["metadata-log"][0]["metadata-file"].startswith(f"file://{lake}/")
    assert StaticTable.from_metadata(meta).scan().to_arrow().num_rows == 1782
    assert _duckdb().execute(f"SELECT count(*) FROM iceberg_scan('file://{meta}')").fetchone() == (1782,)


@pytest.mark.parametrize("bad", ["a#b", "a?b", "100%"])
def test_paths_readers_would_misread_are_refused(tmp_path, bad):
    r = weir("init", tmp_path / bad)
    assert r.returncode == 2 and "Iceberg readers parse locations as URIs" in r.stderr
    assert not (tmp_path / bad).exists()


def _make_old_style(meta_path: str, codec: str = "null") -> None:
    """Rewrites a table version in place as weir wrote it before full URIs: every location
    in the metadata file, the manifest list and the manifests a plain absolute path. The
    manifests are re-encoded by pyiceberg's own writer."""
    from pyiceberg.io.pyarrow import PyArrowFileIO
    from pyiceberg.manifest import write_manifest, write_manifest_list
    from pyiceberg.table import StaticTable

    io = PyArrowFileIO()
    t = StaticTable.from_metadata(meta_path)
    snap = t.current_snapshot()
    strip = lambda s: s[len("file://"):] if s.startswith("file://") else s  # noqa: E731
    new_manifests = []
    for m in snap.manifests(io):
        entries = m.fetch_manifest_entry(io, discard_deleted=False)
        out = strip(m.manifest_path).replace(".avro", "-old.avro")
        with write_manifest(format_version=2, spec=t.spec(), schema=t.schema(), output_file=io.new_output(out),
                            snapshot_id=snap.snapshot_id, avro_compression=codec) as mw:
            for e in entries:
                e.data_file._data[1] = strip(e.data_file.file_path)  # file_path (read-only property)
                mw.add_entry(e)
        new_manifests.append(mw.to_manifest_file())
    for mf in new_manifests:
        assert not mf.manifest_path.startswith("file:")
    old_list = strip(snap.manifest_list).replace(".avro", "-old.avro")
    with write_manifest_list(format_version=2, output_file=io.new_output(old_list), snapshot_id=snap.snapshot_id,
                             parent_snapshot_id=snap.parent_snapshot_id, sequence_number=snap.sequence_number,
                             avro_compression=codec) as lw:
        lw.add_manifests(new_manifests)
    doc = json.loads(pathlib.Path(meta_path).read_text())
    doc["location"] = strip(doc["location"])
    for s in doc["snapshots"]:
        s["manifest-list"] = old_list if s["snapshot-id"] == snap.snapshot_id else strip(s["manifest-list"])
    for e in doc.get("metadata-log", []):
        e["metadata-file"] = strip(e["metadata-file"])
    assert "file:" not in json.dumps(doc)
    pathlib.Path(meta_path).write_text(json.dumps(doc))


# deflate: pyiceberg's codec (as Python's avro) keeps 3 bytes of zlib's Adler-32 trailer
# after the raw deflate stream; weir read such manifests as corrupt until it tolerated them.
@pytest.mark.parametrize("codec", ["null", "deflate"])
def test_an_old_lake_with_scheme_less_paths_still_reads_and_writes(lake, codec):
    assert weir("import", TITANIC, "--table", "titanic", lake=lake).returncode == 0
    meta = weir_list("tables", lake=lake)[0]["metadata_location"]
    _make_old_style(meta, codec)
    assert _count(lake, "SELECT count(*), sum(PassengerId) FROM titanic") == 891
    r = weir("import", TITANIC, "--table", "titanic", "--mode", "append", lake=lake)
    assert r.returncode == 0, r.stderr
    assert _count(lake, "SELECT count(*) FROM titanic") == 1782
    new = json.loads(pathlib.Path(weir_list("tables", lake=lake)[0]["metadata_location"]).read_text())
    assert new["location"].startswith("file:///")
    assert new["metadata-log"][-1]["metadata-file"] == "file://" + meta
    # Other engines read the mixed version (old manifests carried, new ones with URIs).
    from pyiceberg.table import StaticTable

    latest = weir_list("tables", lake=lake)[0]["metadata_location"]
    assert StaticTable.from_metadata(latest).scan().to_arrow().num_rows == 1782
