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
            16: "Unsupported"}


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
