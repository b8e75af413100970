"""Every libweir error code maps to one exception class, and the structured details
(violations, conflicts, plan problems) come back as typed records."""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

from typing import Annotated

import pyarrow as pa
import pytest

import weir
from weir import _ffi
from weir.errors import CODES, error_class, error_from_code
from test_client_support import client, library_path, titanic_client, weir_env  # noqa: F401 - fixtures

EXPECTED = {1: "WeirError", 2: "NotFound", 3: "AlreadyExists", 4: "StorageError", 5: "CatalogError",
            6: "EngineError", 7: "InvalidName", 8: "InvalidArgument", 9: "InvalidInput", 10: "ContractViolation",
            11: "PlanError", 12: "MergeConflict", 13: "ConcurrentUpdate", 14: "PartialRunError", 15: "ModelError",
            16: "Unsupported", 17: "Interrupted", 18: "StaleRead", 19: "OutOfMemory"}


def test_one_class_per_code_named_as_libweir_names_it(weir_env):
    lib = _ffi.load_library(library_path())
    assert dict(CODES) == EXPECTED
    for code, name in EXPECTED.items():
        assert lib.error_name(code) == name
        cls = error_class(code)
        assert cls.__name__ == name and cls.code == code and getattr(weir, name) is cls
        assert issubclass(cls, weir.WeirError)
        e = error_from_code(code, "msg", '[{"a": 1}]')
        assert type(e) is cls and e.message == "msg" and e.details == [{"a": 1}] and e.name == name
        assert e.exit_code == lib.fn("weir_error_exit_code")(code)
        assert e.to_json() == {"code": name, "code_num": code, "message": "msg", "details": [{"a": 1}]}
    assert error_class("MergeConflict") is weir.MergeConflict and error_class(99) is weir.WeirError
    assert isinstance(error_from_code(2, "x"), LookupError)
    assert isinstance(error_from_code(7, "x"), ValueError)
    # Out of memory is a MemoryError too, so `except MemoryError` catches it.
    assert isinstance(error_from_code(19, "out of memory"), MemoryError)
    assert isinstance(error_from_code(19, "out of memory"), weir.WeirError)


def test_not_found(titanic_client):
    with pytest.raises(weir.NotFound, match="table default.nope does not exist at main") as e:
        titanic_client.get_table("nope")
    assert e.value.code == 2 and e.value.exit_code == 1
    with pytest.raises(weir.NotFound):
        titanic_client.get_commits(ref="no-such-branch")
    with pytest.raises(weir.NotFound, match="branch 'ghost' does not exist"):
        titanic_client.get_branch("ghost")
    with pytest.raises(weir.NotFound):
        titanic_client.query("SELECT * FROM missing_table")
    with pytest.raises(weir.NotFound):
        weir.Client(titanic_client.path + "-missing")


def test_invalid_name(client):
    with pytest.raises(weir.InvalidName, match=r"bad\.\.name") as e:
        client.create_branch("bad..name")
    assert e.value.code == 7 and e.value.exit_code == 2
    with pytest.raises(weir.InvalidName):
        client.import_data("../escape", pa.table({"x": [1]}))
    with pytest.raises(weir.InvalidName):
        client.create_tag("-v1")


def test_already_exists_and_engine_error(titanic_client):
    titanic_client.create_branch("dev")
    with pytest.raises(weir.AlreadyExists):
        titanic_client.create_branch("dev")
    with pytest.raises(weir.AlreadyExists):
        titanic_client.import_data("titanic", pa.table({"x": [1]}))
    with pytest.raises(weir.EngineError, match="nocol"):
        titanic_client.query("SELECT nocol FROM titanic")
    with pytest.raises(weir.InvalidInput):
        titanic_client.query("SELEKT 1")
    with pytest.raises(weir.InvalidArgument, match="read-only"):
        titanic_client.query("CREATE TABLE x (a INT)")
    with pytest.raises(weir.AlreadyExists):
        weir.Client.init(titanic_client.path)


def test_contract_violation_carries_every_violation(client):
    class Strict(weir.TableSchema):
        """A strict contract."""

        pid: Annotated[weir.Int64, weir.Unique]
        tclass: Annotated[weir.Int64, weir.Enum({"1st": 1, "2nd": 2})]
        Fare: weir.Float64

    data = pa.table({"pid": pa.array([1, 2, 2, None], pa.int64()), "tclass": pa.array([1, 2, 3, 3], pa.int64()),
                     "fare_usd": pa.array([1.0, 2.0, 3.0, 4.0])})
    with pytest.raises(weir.ContractViolation) as e:
        client.import_data("strict", data, contract=Strict)
    err = e.value
    assert err.code == 10 and err.exit_code == 3
    kinds = {v.kind: v for v in err.violations}
    assert set(kinds) >= {"missing", "unknown", "nulls", "enum", "unique"}
    assert kinds["missing"].column == "Fare" and kinds["missing"].message == 'missing column "Fare" (expected double)'
    assert kinds["unknown"].message == 'unknown column "fare_usd" (has type double)'
    assert kinds["nulls"].column == "pid" and kinds["nulls"].count == 1 and kinds["nulls"].rows == (3,)  # 0-based
    assert kinds["enum"].count == 2 and kinds["enum"].rule == "tclass.enum"
    assert all(str(v) == v.message for v in err.violations)
    assert 'missing column "Fare"' in err.message
    # Nothing was written.
    assert client.get_tables() == []


def test_merge_conflict_lists_the_tables(client):
    a = client.create_branch("a")
    b = client.create_branch("b")
    client.import_data("t", pa.table({"x": [1]}), branch=a)
    client.import_data("t", pa.table({"x": [2]}), branch=b)
    client.import_data("u", pa.table({"x": [1]}), branch=a)
    client.import_data("u", pa.table({"x": [3]}), branch=b)
    assert client.merge(a, into_branch="main").result == "fast-forward"
    head = client.get_branch("main").head
    with pytest.raises(weir.MergeConflict) as e:
        client.merge(b, into_branch="main")
    err = e.value
    assert err.code == 12 and err.exit_code == 4
    assert [(c.table, c.ours, c.theirs) for c in err.conflicts] == [
        ("default.t", "added", "added"), ("default.u", "added", "added")]
    assert all(c.ours_metadata and c.theirs_metadata and c.ours_metadata != c.theirs_metadata for c in err.conflicts)
    assert client.get_branch("main").head == head  # nothing written


def test_plan_error_has_problems(titanic_client, tmp_path):
    proj = tmp_path / "broken"
    proj.mkdir()
    (proj / "x.sql").write_text("-- weir: output_schema=Nope\nSELECT * FROM not_a_table\n")
    with pytest.raises(weir.PlanError) as e:
        titanic_client.run(proj)
    err = e.value
    assert err.code == 11 and err.exit_code == 3
    assert err.problems and all(isinstance(p, weir.PlanProblem) for p in err.problems)
    text = " ".join(p.message for p in err.problems)
    assert "not_a_table" in text and "Nope" in text
    assert any(p.file == "x.sql" for p in err.problems)
    # check() reports the same problems without raising.
    plan = titanic_client.check(proj)
    assert plan.ok is False and [p.message for p in plan.problems] == [p.message for p in err.problems]
    # Nothing written, no run branch.
    assert [b.name for b in titanic_client.get_branches()] == ["main"]


# ---- arguments are checked before libweir sees them ------------------------------------------


@pytest.mark.parametrize("call, cls, value", [
    (lambda c: c.create_branch("ok\x00 ../../evil"), weir.InvalidName, "ok\x00 ../../evil"),
    (lambda c: c.delete_branch("nul\x00garbage"), weir.InvalidName, "nul\x00garbage"),
    (lambda c: c.import_data("nt\x00../../x", pa.table({"x": [1]})), weir.InvalidName, "nt\x00../../x"),
    (lambda c: c.query("select 42 x\x00; garbage"), weir.InvalidArgument, "select 42 x\x00; garbage"),
    (lambda c: c.create_tag("v1\x00x"), weir.InvalidName, "v1\x00x"),
    (lambda c: c.resolve("main\x00~1"), weir.InvalidArgument, "main\x00~1"),
    (lambda c: c.get_tables(ref="main\x00x"), weir.InvalidArgument, "main\x00x"),
    (lambda c: c.import_data("t", pa.table({"x": [1]}), message="m\x00x"), weir.InvalidArgument, "m\x00x"),
    (lambda c: c.import_data("t", "data.csv\x00.parquet"), weir.InvalidArgument, "data.csv\x00.parquet"),
])
def test_a_nul_character_in_a_string_argument_is_refused(client, call, cls, value):
    client.create_branch("nul")
    before = (client.get_branches(), client.get_tags(), client.get_tables())
    with pytest.raises(cls) as e:
        call(client)
    assert repr(value) in str(e.value) and "NUL" in str(e.value)
    assert (client.get_branches(), client.get_tags(), client.get_tables()) == before  # nothing touched


def test_arguments_of_the_wrong_type_raise_type_error_naming_the_parameter(client, tmp_path):
    with pytest.raises(TypeError, match=r"name must be a branch name \(a str or Branch\), not int \(123\)"):
        client.create_branch(123)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"name must be a branch name \(a str or Branch\), not None"):
        client.create_branch(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"sql must be a str, not int \(123\)"):
        client.query(123)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"limit must be an int or None, not str \('2'\)"):
        client.get_commits(limit="2")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="ref must be a branch, tag or commit hash"):
        client.get_tables(ref=7)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"path must be a path \(a str or os.PathLike\), not int"):
        client.export_query("SELECT 1 AS x", 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="lake must be a path"):
        weir.Client(lake=5)  # type: ignore[arg-type]
    assert [b.name for b in client.get_branches()] == ["main"]
    # None keeps meaning main where a ref or branch defaults to main; paths may be PathLike.
    assert client.get_commits(ref=None) == client.get_commits(ref="main")
    assert client.create_branch("dev", from_ref=None).head == client.get_branch("main").head
    csv = tmp_path / "t.csv"
    csv.write_text("x\n1\n2\n")
    assert client.import_data("t", csv, branch=None).rows_written == 2
    assert client.query("SELECT SUM(x) AS s FROM t", ref=None).to_pylist() == [{"s": 3}]
    assert client.export_query("SELECT * FROM t", tmp_path / "out.csv", format="csv") == 2


def test_get_commits_limit_zero_returns_no_commits(titanic_client):
    c = titanic_client
    assert len(c.get_commits()) == 2 and len(c.get_commits(limit=None)) == 2
    assert c.get_commits(limit=0) == []  # as `weir log -n 0`
    assert [x.hash for x in c.get_commits(limit=1)] == [c.get_branch("main").head]
    with pytest.raises(weir.InvalidArgument, match="limit must be 0 or more"):
        c.get_commits(limit=-1)
    with pytest.raises(weir.NotFound):
        c.get_commits(ref="no-such-branch", limit=0)


def test_an_empty_ref_or_branch_is_refused_not_read_as_main(titanic_client):
    c = titanic_client
    for call in (lambda: c.resolve(""), lambda: c.get_commits(ref=""), lambda: c.get_commit(""),
                 lambda: c.get_tables(ref=""), lambda: c.query("SELECT 1 AS x", ref=""),
                 lambda: c.create_branch("dev", from_ref=""), lambda: c.diff("", "main")):
        with pytest.raises(weir.InvalidArgument, match="ref(_a)? must not be empty"):
            call()
    c.create_branch("dev")
    with pytest.raises(weir.InvalidArgument, match="into_branch must not be empty"):
        c.merge("dev", into_branch="")
    with pytest.raises(weir.InvalidArgument, match="branch must not be empty"):
        c.import_data("t2", pa.table({"x": [1]}), branch="")
    assert [b.name for b in c.get_branches()] == ["dev", "main"] and len(c.get_tables()) == 1
    assert c.resolve("main") == c.get_branch("main").head


def test_set_progress_needs_a_callable(client):
    with pytest.raises(TypeError, match=r"fn must be a callable .*not int \(42\)"):
        client.set_progress(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="progress must be a callable"):
        weir.Client(client.path, progress="print")  # type: ignore[arg-type]
    client.set_progress(None)
    client.set_progress(lambda e: None)


def test_arrow_column_names_are_checked_before_import(client):
    dup = pa.table([pa.array([1]), pa.array([2])], names=["a", "a"])
    with pytest.raises(weir.InvalidArgument, match='^column "a" appears twice in the data$'):
        client.import_data("dup", dup)
    empty = pa.table([pa.array([1]), pa.array([2])], names=["", "b"])
    with pytest.raises(weir.InvalidArgument, match="^column 1 has an empty name$"):
        client.import_data("empty", empty)
    with pytest.raises(weir.InvalidArgument, match="^column 2 has an empty name$"):
        client.import_data("empty", pa.table([pa.array([1]), pa.array([2])], names=["a", ""]).to_batches()[0])
    assert client.get_tables() == []


def test_a_pattern_with_a_regex_syntax_error_fails_at_class_definition():
    with pytest.raises(weir.SchemaError, match=r"schema Codes, column 'code': Pattern\('\^\(a'\) is not a valid "
                                               r"regular expression: missing \), unterminated subpattern"):
        class Codes(weir.TableSchema):
            code: Annotated[weir.String, weir.Pattern("^(a")]
    for bad in ("a)", "[a-", "*x", "a{3,2}"):
        with pytest.raises(weir.SchemaError, match="not a valid regular expression"):
            class Bad(weir.TableSchema):
                s: Annotated[weir.String, weir.Pattern(bad)]

    # PCRE2 syntax Python's re lacks is left to libweir.
    for ok in (r"\p{Lu}+", "a++", "(?>ab)c", r"\Qa(b\E", "(*UTF)x", "(?<n>a)\\k<n>", "[[:alpha:]]+", "a(?i)b"):
        class Good(weir.TableSchema):
            s: Annotated[weir.String, weir.Pattern(ok)]

        assert Good.to_ir()["columns"][0]["rules"][0]["pattern"] == ok
