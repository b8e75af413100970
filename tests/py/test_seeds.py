"""The seeds' listings (examples/seeds/) run as printed, up to the differences listed in
examples/seeds/README.md: the data-contracts paper's Titanic DAG in both SDKs, its error
listing and its enum, the GitLake paper's DAG and client script, and the data-contracts
blog's transactions contract. Each against a fresh lake, with the numbers the papers'
data gives."""
from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, TITANIC, count, weir, weir_bin, weir_json, weir_list

pytestmark = pytest.mark.cli

SEEDS = ROOT / "examples" / "seeds"
PAPER = SEEDS / "data_contracts_paper"
SDK1, SDK2 = PAPER / "sdk1", PAPER / "sdk2"
TITANIC_CONTRACT = ROOT / "examples" / "titanic" / "project" / "contracts" / "titanic.yml"
GITLAKE = SEEDS / "git_for_data_paper"
BLOG_CONTRACT = SEEDS / "contracts_blog" / "contracts" / "transactions.yml"
FARE_TOTAL = 11646  # ceil of the fares of 1st and 2nd class women


def copy(src, dst, edits: dict[str, list[tuple[str, str]]] | None = None):
    """A copy of a seed folder with text replacements (each must apply) per file."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    for name, subs in (edits or {}).items():
        path = dst / name
        text = path.read_text()
        for old, new in subs:
            assert old in text, f"{old!r} not in {name}"
            text = text.replace(old, new)
        path.write_text(text)
    return dst


@pytest.fixture
def titanic(lake):
    """A fresh lake with titanic imported through its contract (Cabin nullable)."""
    r = weir("import", TITANIC, "--table", "titanic", "--contract", TITANIC_CONTRACT, lake=lake)
    assert r.returncode == 0, r.stderr
    return lake


def tables(lake) -> dict[str, int]:
    return {t["table"]: t["record_count"] for t in weir_list("tables", lake=lake)}


# ---- "Not Your Usual Type(s)", Listings 4-9 ---------------------------------------------

def test_typed_titanic_dag_publishes_the_four_tables(titanic):
    lake = titanic
    plan = weir_json("check", SDK2, lake=lake)
    assert [m["name"] for m in plan["models"]] == ["f", "fare_sum", "g", "h"]
    # The plan says which column is cast exactly (Listing 9's opt-in).
    fare_sum = next(m for m in plan["models"] if m["name"] == "fare_sum")
    assert fare_sum["exact_casts"] == [{"column": "fare_total", "from": None, "to": "int64", "input": None}]
    assert all(m["exact_casts"] == [] for m in plan["models"] if m["name"] != "fare_sum")
    human = weir("check", SDK2, lake=lake)
    assert human.returncode == 0, human.stderr
    assert "     cast exact: fare_total to int64 (from the type the data has; a value that does not convert " \
           "exactly fails the run)" in human.stdout

    r = weir("run", SDK2, lake=lake)
    assert r.returncode == 0, r.stderr
    assert tables(lake) == {"default.titanic": 891, "default.f": 170, "default.g": 593, "default.h": 80,
                            "default.fare_sum": 1}
    assert count(lake, "SELECT fare_total FROM fare_sum") == FARE_TOTAL
    # The stored type is the declared one; the contract keeps the opt-in.
    described = weir_json("describe", "fare_sum", lake=lake)
    assert [(c["name"], c["type"], c["required"]) for c in described["columns"]] == [("fare_total", "int64", True)]
    assert described["contract"]["columns"][0]["cast"] == "exact"
    assert described["comment"] == "Compute the total fare for first- and second-class women passengers."
    run = weir_list("runs", lake=lake)[0]
    model = next(m for m in run["models"] if m["model"] == "fare_sum")
    assert model["report"]["casts"] == [{"column": "fare_total", "from": "double", "to": "int64", "cast": "exact"}]
    # Docs and lineage of Listing 4 reach the Iceberg metadata.
    h = {c["name"]: c for c in weir_json("describe", "h", lake=lake)["columns"]}
    assert h["tclass"]["lineage"] == ["WomenByClass.tclass"]
    assert h["Fare"]["doc"] == "Cost of tickets that cost more than average (by deck)."
    f = {c["name"]: c for c in weir_json("describe", "f", lake=lake)["columns"]}
    assert f["pid"]["doc"] == "Unique passenger ID" and f["pid"]["required"]


def test_listing_9_without_the_opt_in_names_both_fixes(titanic, tmp_path):
    proj = copy(SDK2, tmp_path / "p", {"listing09.py": [(' TableField(cast="exact"),', "")]})
    r = weir("run", proj, lake=titanic)
    assert r.returncode == 3, r.stderr
    assert "contract violation in model fare_sum (output, schema TotalFares):" in r.stderr
    assert ('  - column "fare_total" has type double, expected int64 (narrowing casts are not applied: cast it in '
            "the model, or declare the column's cast exact, with cast: exact in YAML or TableField(cast=\"exact\") "
            "in Python, to apply it when every value converts without loss)") in r.stderr
    assert "default.fare_sum" not in tables(titanic)


def test_listing_9_with_a_total_that_is_not_whole_names_the_row_and_value(titanic, tmp_path):
    proj = copy(SDK2, tmp_path / "p", {"listing09.py": [(".sum().ceil()", ".sum()")]})
    r = weir("run", proj, lake=titanic)
    assert r.returncode == 3, r.stderr
    assert ('  - column "fare_total" has 1 value of type double that does not convert exactly to int64 '
            "(row 0: 11645.5542)") in r.stderr
    run = weir_list("runs", lake=titanic)[0]
    v = next(m for m in run["models"] if m["model"] == "fare_sum")["violations"][0]
    assert (v["kind"], v["column"], v["cast"], v["count"], v["rows"], v["samples"]) == (
        "type", "fare_total", "exact", 1, [0], [11645.5542])
    assert (v["found"], v["expected"]) == ("double", "int64")


def test_the_printed_cabin_is_refused_at_plan_time(titanic, tmp_path):
    # Print declares Cabin String (required); the titanic table's is nullable.
    proj = copy(SDK2, tmp_path / "p", {"listing04.py": [(
        "Cabin: Annotated[String | None, Doc('Cabin number", "Cabin: Annotated[String, Doc('Cabin number")]})
    r = weir("check", proj, lake=titanic)
    assert r.returncode == 3
    assert ('listing06.py:15: model g: input adult_lodgings (schema CabinCostSource): column "Cabin" is required, '
            "but table default.titanic declares it nullable") in r.stderr


# ---- Listing 8: the errors on Fare after h ---------------------------------------------

def test_listing_8_messages_are_weirs(titanic, tmp_path):
    lake = titanic
    assert weir("run", SDK2, lake=lake).returncode == 0
    printed = (PAPER / "listing08.txt").read_text().splitlines()
    expected = [line for line in printed if line.startswith("  - ")]
    header = next(line for line in printed if line.startswith("error: "))
    assert len(expected) == 3
    fare_int = ("'pid', 'tclass', 'Fare', 'Cabin')", "'pid', 'tclass', pl.col('Fare').cast(pl.Int64), 'Cabin')")
    variants = [
        {"listing07.py": [("'pid', 'tclass', 'Fare', 'Cabin')", "'pid', 'tclass', 'Cabin')")]},
        {"listing07.py": [fare_int]},
        {"listing07.py": [fare_int],
         "listing04.py": [("    Fare: Annotated[Float64, WomenByClass['Fare'],\n"
                           "                    Doc('Cost of tickets that cost more than average (by deck).')\n"
                           "    ]\n", "")]},
    ]
    for i, (edits, line) in enumerate(zip(variants, expected, strict=True)):
        # Only h and the schemas: f and g are read from main, where the first run put them.
        proj = copy(SDK2, tmp_path / f"v{i}", edits)
        for other in ("listing05.sql", "listing06.py", "listing09.py"):
            (proj / other).unlink()
        r = weir("run", proj, lake=lake)
        assert r.returncode == 3, r.stderr
        run_id = weir_list("runs", lake=lake)[0]["run_id"]
        got = r.stderr.replace(run_id, "<id>").splitlines()
        assert got == [header, line], got


# ---- Listing 10: an enum ---------------------------------------------------------------

def test_listing_10_enum_holds_for_f_and_catches_third_class(titanic, tmp_path):
    lake = titanic
    proj = tmp_path / "enum"
    shutil.copytree(PAPER / "listing10", proj, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(SDK2 / "listing05.sql", proj / "listing05.sql")
    r = weir("run", proj, lake=lake)
    assert r.returncode == 0, r.stderr
    assert tables(lake)["default.f"] == 170
    stored = weir_json("describe", "f", lake=lake)["contract"]
    rule = stored["columns"][1]["rules"][0]
    assert (rule["kind"], rule["values"], rule["value_names"]) == ("enum", [1, 2], ["1st", "2nd"])
    sql = (proj / "listing05.sql").read_text()
    (proj / "listing05.sql").write_text(sql.replace("Pclass IN (1, 2)", "Pclass IN (1, 2, 3)"))
    r = weir("run", proj, lake=lake)
    assert r.returncode == 3
    assert '  - column "tclass" has 144 values outside the enum [1, 2] (e.g. 3)' in r.stderr


# ---- Listings 1-3: the original SDK ----------------------------------------------------

def test_original_sdk_dag_runs(titanic):
    lake = titanic
    plan = weir_json("check", SDK1, lake=lake)
    g = next(m for m in plan["models"] if m["name"] == "g")
    assert g["inputs"][0]["columns"] == ["PassengerId", "Pclass", "Fare", "Cabin"]
    assert g["inputs"][0]["filter"] == "Age >= 18 AND Age <= 65" and g["inputs"][0]["schema"] is None
    r = weir("run", SDK1, lake=lake)
    assert r.returncode == 0, r.stderr
    assert tables(lake) == {"default.titanic": 891, "default.f": 170, "default.g": 593, "default.h": 80}
    h = weir_json("describe", "h", lake=lake)
    assert [c["name"] for c in h["columns"]] == ["pid", "tclass", "Fare", "Cabin"]


# ---- "Report only the root cause" ------------------------------------------------------

def test_a_bad_keyword_in_models_py_is_the_only_problem(titanic, tmp_path):
    # The case: the Titanic project's models.py does not import, and f.sql names a
    # schema defined there. Only the import error is a problem.
    proj = copy(ROOT / "examples" / "titanic" / "project", tmp_path / "p",
                {"models.py": [('@weir.model(materialization="REPLACE")\n@weir.python("3.11", pip={"polars": "1.*"})\n'
                                "def g(",
                                '@weir.model(materialisation="REPLACE")\n@weir.python("3.11", pip={"polars": "1.*"})\n'
                                "def g(")]})
    r = weir("check", proj, "--json", lake=titanic)
    assert r.returncode == 3
    problems = json.loads(r.stdout)["error"]["details"]
    assert [p["message"] for p in problems] == [
        "models.py:66: TypeError while importing models.py: model() got an unexpected keyword argument "
        "'materialisation'"], problems


def test_a_file_failing_because_another_fails_is_not_a_second_problem(titanic, tmp_path):
    # listing06, 07 and 09 import listing04: its error is reported once, at listing04.
    proj = copy(SDK2, tmp_path / "p", {"listing04.py": [("    Fare: Annotated[Float64, Doc('Ticket cost (British "
                                                         "pounds)')]\n\n\nclass CabinCostSource",
                                                         "    Fare: Annotated[Float65, Doc('Ticket cost (British "
                                                         "pounds)')]\n\n\nclass CabinCostSource")]})
    r = weir("check", proj, "--json", lake=titanic)
    assert r.returncode == 3
    msgs = [p["message"] for p in json.loads(r.stdout)["error"]["details"]]
    assert len(msgs) == 1 and msgs[0].startswith("listing04.py:"), msgs
    assert "NameError" in msgs[0] and "Float65" in msgs[0]


def test_a_bad_keyword_in_one_listing_does_not_make_its_model_missing_for_others(titanic, tmp_path):
    proj = copy(SDK2, tmp_path / "p", {"listing06.py": [("materialization_strategy='REPLACE'",
                                                         "materialisation_strategy='REPLACE'")]})
    r = weir("check", proj, "--json", lake=titanic)
    msgs = [p["message"] for p in json.loads(r.stdout)["error"]["details"]]
    assert len(msgs) == 1 and "unexpected keyword argument 'materialisation_strategy'" in msgs[0], msgs


# ---- "GitLake", Listings 1 and 2 -------------------------------------------------------

def test_gitlake_listing_2_runs_on_listing_1(lake, tmp_path):
    (tmp_path / "source.csv").write_text("_S\n1\n2\n3\n")
    (tmp_path / "more.csv").write_text("_S\n10\n")
    # The source Listing 1 reads, with its column declared required as Source says.
    (tmp_path / "source.yml").write_text("contract:\n  name: source\n  columns:\n    - {name: _S, type: Int64}\n")
    r = weir("import", tmp_path / "source.csv", "--table", "source", "--contract", tmp_path / "source.yml", lake=lake)
    assert r.returncode == 0, r.stderr
    r = weir("run", "pipeline/", lake=lake, cwd=GITLAKE)
    assert r.returncode == 0, r.stderr
    assert count(lake, "SELECT SUM(_S) FROM child") == 6
    assert weir("import", tmp_path / "more.csv", "--table", "source", "--mode", "append", lake=lake).returncode == 0
    before = weir_json("show", "main", lake=lake)["hash"]
    env = dict(os.environ, WEIR_LAKE=str(lake), WEIR_PYTHON=sys.executable, WEIR_AUTHOR="tester")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "python"), env.get("PYTHONPATH")) if p)
    p = subprocess.run([sys.executable, "listing02.py"], cwd=GITLAKE, env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[{'sum(_S)': Decimal('6')}]"  # 5) child as it was before the merge
    # 4) the run on dev_br was merged, then dev_br deleted; 6) child was reverted alone.
    assert [b["name"] for b in weir_list("branch", lake=lake)] == ["main"]
    assert count(lake, "SELECT SUM(_S) FROM parent") == 16
    assert count(lake, "SELECT SUM(_S) FROM child") == 6
    log = weir_list("log", lake=lake)
    assert [c["tables_changed"] for c in log[:1]] == [[{"table": "default.child", "change": "changed"}]]
    assert before in [c["hash"] for c in log]
    run = weir_list("runs", lake=lake)[0]
    assert run["status"] == "succeeded" and run["branch"] == "dev_br"


def test_gitlake_readme_commands_run_as_printed(lake, tmp_path):
    """Found by the audit of issue 18: the README's commands imported a source.csv that was
    not there, without a contract, so the plan refused Listing 1 (Source's _S is required)."""
    readme = (SEEDS / "README.md").read_text()
    section = readme[readme.index("## \"GitLake"):readme.index("## \"Data Contracts")]
    (sh,) = re.findall(r"```sh\n(.*?)```", section, re.S)
    # The README's folder, in a copy: the commands run in it as printed, from the repository's root.
    shutil.copytree(GITLAKE, tmp_path / "examples" / "seeds" / GITLAKE.name, ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, WEIR_LAKE=str(lake), WEIR_PYTHON=sys.executable, WEIR_AUTHOR="tester",
               PATH=os.pathsep.join([str(weir_bin().parent), os.path.dirname(sys.executable), os.environ["PATH"]]))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "python"), env.get("PYTHONPATH")) if p)
    p = subprocess.run(["bash", "-e", "-c", sh], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, (sh, p.stdout, p.stderr)
    assert p.stdout.strip().splitlines()[-1] == "[{'sum(_S)': Decimal('6')}]", p.stdout
    assert count(lake, "SELECT SUM(_S) FROM parent") == 16 and count(lake, "SELECT SUM(_S) FROM child") == 6
    assert [b["name"] for b in weir_list("branch", lake=lake)] == ["main"]


# ---- the data-contracts blog's contract -----------------------------------------------

def transactions_csv(path, rows):
    path.write_text("transaction_id,customer_id,amount,transaction_date,status,currency\n" +
                    "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


def test_blog_contract_accepts_good_rows(lake, tmp_path):
    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    good = transactions_csv(tmp_path / "good.csv", [
        (1, 10, "12.50", today, "completed", "EUR"), (2, 11, "999999.99", today, "pending", "USD"),
        (3, 10, "0.01", "2020-01-01", "reversed", "GBP")])
    r = weir("import", good, "--table", "transactions", "--contract", BLOG_CONTRACT, "--json", lake=lake)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["rows_written"] == 3 and doc["report"]["violations"] == []
    rules = {x["rule"]: x for x in doc["report"]["rules"]}
    assert rules["freshness"]["passed"] and rules["freshness"]["value"] <= 26
    assert rules["completeness"]["passed"] and rules["no_duplicates"]["passed"]
    described = weir_json("describe", "transactions", lake=lake)
    assert [(c["name"], c["type"]) for c in described["columns"]] == [
        ("transaction_id", "int64"), ("customer_id", "int64"), ("amount", "decimal128(18, 2)"),
        ("transaction_date", "date32"), ("status", "large_string"), ("currency", "large_string")]
    assert described["contract"]["owner"] == "backend-team" and described["contract"]["version"] == "2.1"
    assert described["contract"]["sla"] == {"freshness": "1 hour", "availability": "99.9%"}


def test_blog_contract_reports_each_bad_row(lake, tmp_path):
    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    future = (dt.datetime.now(dt.timezone.utc).date() + dt.timedelta(days=3)).isoformat()
    bad = transactions_csv(tmp_path / "bad.csv", [
        (1, 10, "12.50", today, "completed", "EUR"),      # good
        (1, 11, "5.00", today, "pending", "USD"),         # duplicate id
        (3, "", "7.00", today, "pending", "USD"),         # no customer
        (4, 12, "-5.00", today, "failed", "USD"),         # amount <= 0
        (5, 12, "1000000.00", today, "failed", "USD"),    # amount too large
        (6, 12, "8.00", "2019-12-31", "completed", "EUR"),  # before 2020
        (7, 12, "8.00", future, "completed", "EUR"),      # in the future
        (8, 12, "8.00", today, "done", "EUR"),            # status not allowed
        (9, 12, "8.00", today, "completed", "usd"),       # currency pattern
    ])
    r = weir("import", bad, "--table", "transactions", "--contract", BLOG_CONTRACT, lake=lake)
    assert r.returncode == 3, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.startswith("  - ")]
    assert lines == [
        '  - column "transaction_id" has 1 duplicate value (e.g. 1)',
        '  - column "customer_id" has 1 null value but is required (row 2)',
        '  - check "amount > 0" fails for 1 row (row 3)',
        '  - check "amount < 1000000" fails for 1 row (row 4)',
        "  - check \"transaction_date >= '2020-01-01'\" fails for 1 row (row 5)",
        '  - check "transaction_date <= current_date()" fails for 1 row (row 6)',
        '  - column "status" has 1 value outside the enum ["completed", "pending", "failed", "reversed"] '
        '(e.g. "done")',
        '  - column "currency" has 1 value not matching the pattern "^[A-Z]{3}$" (e.g. "usd")',
        '  - rule "no_duplicates" returned 1, expected <= 0',
    ], r.stderr
    assert weir_list("tables", lake=lake) == []


def test_blog_freshness_rule_as_printed_names_the_dialect(lake, tmp_path):
    text = BLOG_CONTRACT.read_text()
    ours = "date_diff('hour', MAX(transaction_date), current_date())"
    printed = "DATEDIFF(hour, MAX(transaction_date), current_date())"
    assert ours in text
    contract = tmp_path / "transactions.yml"
    contract.write_text(text.replace(ours, printed))
    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    data = transactions_csv(tmp_path / "t.csv", [(1, 10, "12.50", today, "completed", "EUR")])
    r = weir("import", data, "--table", "transactions", "--contract", contract, lake=lake)
    assert r.returncode == 1, r.stderr
    line = next(i for i, t in enumerate(contract.read_text().splitlines(), 1) if "- name: freshness" in t)
    assert re.search(rf'transactions\.yml:{line}:7: rule "freshness" does not run: .*"hour"', r.stderr), r.stderr
    assert (f"    hint: {printed} names its unit as a bare word, as Spark, Databricks, SQL Server and Snowflake do; "
            f"weir runs DuckDB's SQL, where the unit is a string: write {ours}") in r.stderr
    # A project using it hears the same at plan time, before any data is read.
    proj = tmp_path / "proj"
    (proj / "contracts").mkdir(parents=True)
    shutil.copy(contract, proj / "contracts" / "transactions.yml")
    (proj / "t.sql").write_text("-- weir: output_schema=transactions\nSELECT 1::BIGINT AS transaction_id\n")
    r = weir("check", proj, lake=lake)
    assert r.returncode == 3
    assert 'rule "freshness" does not compile' in r.stderr and f"write {ours}" in r.stderr
