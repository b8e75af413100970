"""Bugs the conformance test (test_conformance.py) found, each pinned twice: as a race in
test_serializable.py's style (the SDK's progress callback runs the other writer at an
exact point), and as the shrunk history the conformance test printed, replayed through its
checker.
"""
from __future__ import annotations

import test_client_support  # noqa: F401 - first: makes python/ importable without pip install -e

import pyarrow as pa
import pytest

import weir
from conformance import Replace, Revert, Schedule, check_history, run_history
from test_client_support import client, weir_env  # noqa: F401 - fixtures


def race(c: weir.Client, phase: str, other) -> None:
    """Runs `other()` once, the first time `c` reports progress `phase`."""
    done: list[bool] = []

    def on_progress(event):
        if event.get("phase") == phase and not done:
            done.append(True)
            other()

    c.set_progress(on_progress)


# ---- a refusal names the commit that changed the table since the base ------------------------
# docs/versioning.md: "A refusal names each table, what happened to it, the commit that
# changed it, the base and the head". When the change was a revert to an older version,
# the refusal named the commit that first wrote that version, which is older than the base
# and changed nothing since it.


def test_a_refusal_names_the_revert_that_changed_the_table(client):
    first = client.import_data("t", pa.table({"id": [1]}), message="first").commit
    base = client.import_data("t", pa.table({"id": [2]}), mode="replace", message="second").commit
    with weir.Client(client.path) as other:
        won: list[str] = []
        race(client, "commit",
             lambda: won.append(other.revert_table("t", source_ref=first, message="back to first").commit))
        with pytest.raises(weir.ConcurrentUpdate) as e:
            client.import_data("t", pa.table({"id": [3]}), mode="replace")
    (c,) = e.value.changed
    assert (c.table, c.base, c.head) == ("default.t", base, won[0])
    assert (c.changed_by, c.changed_by_message) == (won[0], "back to first")
    assert f"by commit {won[0][:12]}" in e.value.message


def test_history_replace_refused_after_a_revert(weir_env, tmp_path):  # noqa: F811
    # actor 1 replaces t0 and actor 0's replace starts on that; actor 1 then reverts t0 to
    # its first version, and actor 0's replace is refused, naming the revert.
    h = run_history(tmp_path, Schedule(actors=((Replace(0, 0, ("a",)),), (Replace(0, 0, ("b",)), Revert(0, 0, 0))),
                                       steps=((1, 3), (0, 1), (1, 3))))
    assert [r.status for r in h.records[-3:]] == ["ok", "error", "ok"]
    check_history(h)


# ---- reverting a run that did not publish -----------------------------------------------------
# docs/versioning.md: "A failed run leaves B untouched"; "weir revert --run ID puts every
# table a run wrote back as it was before the run". A run that failed (here: StaleRead)
# wrote its tables only on run/<id>; reverting it on its branch put those tables back to
# the run's base there, discarding what other writers committed to them since. Whether
# such a revert should be refused or change nothing is for the owner of
# src/catalog/revert.c to decide; either way the branch must keep the other writer's rows.
# The conformance checker counts this case as a known bug (conformance.KNOWN_BUGS).

PROJECT_T1 = "-- weir: name=t1\nSELECT id FROM t0\n"


def test_reverting_a_run_that_did_not_publish_leaves_its_branch_alone(client, tmp_path):
    client.import_data("t0", pa.table({"id": [1]}))
    client.import_data("t1", pa.table({"id": [2]}))
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "t1.sql").write_text(PROJECT_T1)
    with weir.Client(client.path) as other:
        race(client, "model", lambda: other.import_data("t0", pa.table({"id": [3]}), mode="append"))
        state = client.run(tmp_path / "p")
        client.set_progress(None)
        assert state.error is not None and state.error.code == "StaleRead"
        other.import_data("t1", pa.table({"id": [42]}), mode="replace", message="someone else's t1")
    head = client.get_branch("main").head
    # t1 is someone else's now: reverting the run would discard it. Refused, naming it.
    with pytest.raises(weir.ConcurrentUpdate) as e:
        client.revert_run(state.run_id)
    assert [c.table for c in e.value.changed] == ["default.t1"]
    assert "the run never published it" in e.value.message
    assert client.query("SELECT id FROM t1").to_pylist() == [{"id": 42}]
    assert client.get_branch("main").head == head


def test_a_refusal_names_the_revert_that_brought_a_version_from_another_branch(client):
    # Found by the soak profile: on dev, t is reverted to a version written on main after
    # dev was made. Its first writer is not in dev's history at all.
    client.import_data("t", pa.table({"id": [1]}), message="first")
    base = client.create_branch("dev").head
    on_main = client.import_data("t", pa.table({"id": [2]}), mode="append", message="on main").commit
    with weir.Client(client.path) as other:
        won: list[str] = []
        race(client, "commit", lambda: won.append(
            other.revert_table("t", source_ref=on_main, into_branch="dev", message="main's t on dev").commit))
        with pytest.raises(weir.ConcurrentUpdate) as e:
            client.import_data("t", pa.table({"id": [3]}), branch="dev", mode="replace")
    (c,) = e.value.changed
    assert (c.base, c.head) == (base, won[0])
    assert (c.changed_by, c.changed_by_message) == (won[0], "main's t on dev")
