"""Listing 2 of "GitLake: Git-for-data for the agentic lakehouse": interleaving data
operations with Python control flow, on the pipeline of Listing 1 (``pipeline/``).

Run from this folder, on a lake where the pipeline has run once (so ``child`` exists on
main) and ``source`` has changed since: ``WEIR_LAKE=/path/to/lake python listing02.py``.
"""
import weir
from weir import Branch, Commit

client = weir.Client()  # "assuming we have a client": the lake of $WEIR_LAKE


def verification_passed() -> bool:
    # What a reviewer checks before publishing: the new child table is not empty.
    return client.query("SELECT COUNT(*) AS n FROM child", ref="dev_br").column("n")[0].as_py() > 0


# 1) assuming we have a client, get the current head of main
cnt_main: Commit = client.get_commits(ref="main", limit=1)[0]
# 2) create a development branch from production
dev_br: Branch = client.create_branch("dev_br", from_ref="main")
# 3) run the DAG on the branch
run_state = client.run("pipeline/", ref=dev_br)
# 4) merge the branch into production on success
if run_state.success() and verification_passed():
    client.merge(dev_br, into="main")
    client.delete_branch(dev_br)
# 5) query the table as it was *before* the merge
rows = client.query("SELECT SUM(_S) FROM child", ref=cnt_main.hash)
# 6) revert a table to a previous snapshot
assert client.revert_table(
    table="child",
    source_ref=cnt_main.hash,
    into_branch="main",
    allow_partial=True,  # not in print: child was published together with parent
)
print(rows.to_pylist())
