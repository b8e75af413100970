"""The GitLake paper's Listing 2 through weir.Client on the Titanic example project: read
main's head, branch, run on the branch, merge on success, delete the branch, query the
lake as it was at the old commit, revert a table to it. Plus failed runs, dry runs and
reverting a whole run."""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

import math
import shutil
import textwrap

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pytest

import weir
from test_client_support import PROJECT, client, titanic_client, weir_env  # noqa: F401 - fixtures
from conftest import TITANIC


def scalar(client: weir.Client, sql: str, ref: weir.client.RefLike = "main"):
    t = client.query(sql, ref=ref)
    assert t.num_rows == 1 and t.num_columns == 1, t
    return t.column(0)[0].as_py()


def expected_fare_total(titanic: pa.Table) -> int:
    women = titanic.filter(pc.field("Pclass").isin([1, 2]) & (pc.field("Sex") == "female"))
    return math.ceil(pc.sum(women["Fare"]).as_py())


def test_listing_2(titanic_client):
    client = titanic_client
    titanic = pacsv.read_csv(TITANIC)
    first = client.run(PROJECT, ref="main")  # the pipeline's first version, published on main
    assert first.success(), first
    assert scalar(client, "SELECT fare_total FROM fare_sum") == expected_fare_total(titanic) == 11646

    # 1) the current head of main
    cnt_main: weir.Commit = client.get_commits(ref="main", limit=1)[0]
    assert cnt_main.hash == client.get_branch("main").head and cnt_main.run_id in (None, first.run_id)
    # 2) a development branch from production; new data lands there only
    dev_br: weir.Branch = client.create_branch("dev_br", from_ref="main")
    assert dev_br.head == cnt_main.hash
    doubled = titanic.set_column(titanic.schema.get_field_index("Fare"), "Fare", pc.multiply(titanic["Fare"], 2.0))
    client.import_data("titanic", doubled, branch=dev_br, mode="replace", message="fares in another currency")
    # 3) run the DAG on the branch
    run_state = client.run(PROJECT, ref=dev_br)
    assert run_state.success(), run_state
    assert {m.model for m in run_state.models} == {"f", "g", "h", "fare_sum"}
    assert run_state.model("h").rows == 80 and all(m.success() for m in run_state.models)
    assert run_state.branch == "dev_br" and run_state.result_commit == client.get_branch("dev_br").head
    assert client.get_branch("main").head == cnt_main.hash  # main untouched so far
    # 4) merge the branch into production on success, then delete it
    merged = client.merge(dev_br, into="main")  # as Listing 2 prints it
    assert merged.result == "fast-forward" and merged.commit == run_state.result_commit
    client.delete_branch(dev_br)
    assert [b.name for b in client.get_branches()] == ["main"]
    new_total = scalar(client, "SELECT fare_total FROM fare_sum")
    assert new_total == expected_fare_total(doubled) != 11646
    # 5) query the table as it was *before* the merge
    assert scalar(client, "SELECT fare_total FROM fare_sum", ref=cnt_main.hash) == 11646
    assert scalar(client, "SELECT SUM(Fare) FROM f", ref=cnt_main) == pytest.approx(
        scalar(client, "SELECT SUM(Fare) FROM f") / 2)
    # 6) revert a table to that commit. fare_sum was published by a run together with
    # f, g and h, so reverting it alone is refused unless allow_partial...
    with pytest.raises(weir.PartialRunError, match=run_state.run_id or "run"):
        client.revert_table("fare_sum", source_ref=cnt_main.hash, into_branch="main")
    reverted = client.revert_table(table="fare_sum", source_ref=cnt_main.hash, into_branch="main", allow_partial=True)
    assert reverted and reverted.commit == client.get_branch("main").head
    assert [t.table for t in reverted.tables] == ["default.fare_sum"]
    assert scalar(client, "SELECT fare_total FROM fare_sum") == 11646
    assert scalar(client, "SELECT fare_total FROM fare_sum", ref=merged.commit) == new_total  # history kept
    # The whole history is there, newest first.
    log = client.get_commits(ref="main")
    assert log[0].hash == reverted.commit and cnt_main.hash in [c.hash for c in log]
    assert any(ch.table == "default.fare_sum" for ch in log[0].tables_changed)


def test_run_docs_and_lineage_land_in_the_catalog(titanic_client):
    state = titanic_client.run(PROJECT)
    assert state.success()
    h = titanic_client.get_table("h")
    assert h.comment == "Expensive cabins reserved by or for working-age women."
    assert [(c.name, c.weir_type, c.required) for c in h.columns] == [
        ("pid", "Int64", True), ("tclass", "Int64", True), ("Fare", "Float64", True), ("Cabin", "String", False)]
    assert h.column("pid").doc == "Passenger id"
    assert h.lineage["Fare"] == ("WomenByClass.Fare", "CabinCostAnalysis.mean_fare")
    assert h.contract is not None and h.contract["name"] == "ExpensiveWomenCabins"
    f = titanic_client.get_table("f")
    assert f.comment == "Women passengers holding 1st or 2nd class tickets."  # SQL model: the schema's doc
    assert f.column("tclass").doc == "Ticket class, 1st or 2nd only"
    assert titanic_client.get_table("fare_sum").column("fare_total").weir_type == "Int64"
    runs = titanic_client.get_runs()
    assert [r.run_id for r in runs] == [state.run_id] and runs[0].status == "succeeded"
    again = titanic_client.get_run(state.run_id or "")
    assert again.result_commit == state.result_commit and len(again.models) == 4


def failing_project(tmp_path, body: str):
    proj = tmp_path / "proj"
    shutil.copytree(PROJECT, proj)
    with open(proj / "models.py", "a") as fh:
        fh.write(textwrap.dedent(body))
    return proj


def test_a_contract_violation_fails_the_run_and_leaves_the_branch_alone(titanic_client, tmp_path):
    proj = failing_project(tmp_path, """

        class ThirdClass(TableSchema):
            \"\"\"Claims to hold 1st and 2nd class only.\"\"\"

            tclass: Annotated[Int64, Enum({"1st": 1, "2nd": 2})]


        @weir.model()
        def bad_classes(src: Annotated[Table[ExpensiveWomenCabins], Model("h")]) -> Table[ThirdClass]:
            \"\"\"Runs last (after h); shifting the class makes 2nd class a 3 and breaks the enum.\"\"\"
            return pl.DataFrame(src).select(tclass=pl.col("tclass") + 1).to_arrow()
    """)
    before = titanic_client.get_branch("main").head
    state = titanic_client.run(proj, ref="main")
    assert not state.success() and state.status == "failed"
    bad = state.model("bad_classes")
    assert bad.status == "failed"
    (v,) = [v for v in bad.violations if v.kind == "enum"]
    assert v.column == "tclass" and v.mode == "fail"
    assert v.count == scalar(titanic_client, "SELECT COUNT(*) FROM h WHERE tclass = 2", ref=state.run_branch or "")
    assert [m.status for m in state.models if m.model != "bad_classes"] == ["succeeded"] * 4
    assert any(x.kind == "enum" for x in state.violations)
    assert state.error is not None and state.error.code == "ContractViolation"
    assert titanic_client.get_branch("main").head == before  # main untouched
    assert state.run_branch and state.run_branch in [b.name for b in titanic_client.get_branches()]  # kept
    # The failed run's commits cannot be merged without allow_partial.
    with pytest.raises(weir.PartialRunError):
        titanic_client.merge(state.run_branch, into_branch="main")
    assert titanic_client.get_run(state.run_id or "").status == "failed"


def test_a_model_exception_fails_the_run(titanic_client, tmp_path):
    proj = failing_project(tmp_path, """

        @weir.model()
        def crash(src: Annotated[Table[WomenByClass], Model("f")]) -> Table[WomenByClass]:
            return src.num_rows // 0
    """)
    state = titanic_client.run(proj)
    assert not state.success()
    crash = state.model("crash")
    assert crash.status == "failed" and crash.error and "ZeroDivisionError" in crash.error
    assert state.error is not None and state.error.code == "ModelError"


def test_dry_run_and_check(titanic_client):
    plan = titanic_client.check(PROJECT)
    assert plan.ok and plan.problems == ()
    names = [m.name for m in plan.models]
    assert set(names) == {"f", "g", "h", "fare_sum"} and names.index("h") > max(names.index("f"), names.index("g"))
    h = plan.models[names.index("h")]
    assert (h.language, h.inputs, h.output_schema) == ("python", ("default.f", "default.g"), "ExpensiveWomenCabins")
    assert plan.models[names.index("f")].language == "sql"
    state = titanic_client.run(PROJECT, dry_run=True)
    assert state.status == "planned" and state.success() and state.plan is not None
    assert [m.model for m in state.models] == names
    assert titanic_client.get_runs() == [] and [t.table for t in titanic_client.get_tables()] == ["default.titanic"]


def test_revert_run_puts_every_table_back(titanic_client):
    before = titanic_client.get_branch("main").head
    state = titanic_client.run(PROJECT)
    assert state.success()
    assert {t.table for t in titanic_client.get_tables()} == {"default.titanic", "default.f", "default.g",
                                                              "default.h", "default.fare_sum"}
    result = titanic_client.revert_run(state)
    assert result.run_id == state.run_id and {t.table for t in result.tables} == {
        "default.f", "default.g", "default.h", "default.fare_sum"}
    assert [t.table for t in titanic_client.get_tables()] == ["default.titanic"]
    assert titanic_client.diff(before, "main").empty
