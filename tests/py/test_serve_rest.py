"""`weir serve` at the HTTP level: the spec's error shape for every refusal, 401 without a
valid token, what restricted tokens see, read-only refs, malformed and oversized bodies,
protected branches (the same rule for the CLI, the SDK and REST), and /metrics.
"""
from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request

import pytest

from conftest import TITANIC, pg_query, weir, weir_list
from serve_support import make_titanic_lake, start_server

pytestmark = pytest.mark.cli  # the server is the weir binary: also run against the ASan build


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    lake = tmp_path_factory.mktemp("serve_rest") / "lake"
    tokens = make_titanic_lake(lake)
    srv = start_server(lake, "--threads", "2")
    yield srv, tokens
    srv.stop()


def call(srv, method, path, token=None, body=None, raw=None):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(srv.url + path, data=data, method=method)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            text = r.read().decode()
            return r.status, (json.loads(text) if text and r.headers.get("Content-Type", "").startswith("application/json") else text)
    except urllib.error.HTTPError as e:
        text = e.read().decode()
        return e.code, (json.loads(text) if text else None)


def assert_error(status, doc, code, type_):
    assert status == code, doc
    assert set(doc) == {"error"}
    e = doc["error"]
    assert e["code"] == code and e["type"] == type_ and isinstance(e["message"], str) and e["message"]


def test_401_without_a_valid_token(served):
    srv, tokens = served
    for tok in (None, "weir_" + "0" * 64, tokens["engine"][:-1]):
        s, d = call(srv, "GET", "/v1/config?warehouse=dev", tok)
        assert_error(s, d, 401, "NotAuthorizedException")
    s, d = call(srv, "GET", "/metrics")
    assert_error(s, d, 401, "NotAuthorizedException")


def test_revoked_token_is_refused(served):
    srv, _ = served
    r = weir("token", "create", "--name", "temp", lake=srv.lake)
    tok = r.stdout.strip()
    assert call(srv, "GET", "/v1/config", tok)[0] == 200
    assert weir("token", "revoke", "temp", lake=srv.lake).returncode == 0
    assert_error(*call(srv, "GET", "/v1/config", tok), 401, "NotAuthorizedException")
    listed = {t["name"]: t for t in weir_list("token", "list", lake=srv.lake)}
    assert listed["temp"]["revoked"] and "token" not in listed["temp"]
    # Stored hashed only, on either backend.
    if (srv.lake / "catalog.db").exists():
        assert tok not in (srv.lake / "catalog.db").read_bytes().decode("latin-1")
    else:
        rows = pg_query(srv.lake, "SELECT name, secret_sha256 FROM access_tokens")
        assert rows and all(tok not in "\t".join(row) for row in rows)
        assert hashlib.sha256(tok.encode()).hexdigest() in {row[1] for row in rows}


def test_config_gives_the_ref_as_prefix(served):
    srv, tokens = served
    s, d = call(srv, "GET", "/v1/config?warehouse=dev", tokens["engine"])
    assert s == 200 and d["overrides"]["prefix"] == "dev" and "POST /v1/{prefix}/transactions/commit" in d["endpoints"]
    assert_error(*call(srv, "GET", "/v1/config?warehouse=nope", tokens["engine"]), 404, "NoSuchWarehouseException")


def test_restricted_tokens(served):
    srv, tokens = served
    assert call(srv, "GET", "/v1/dev/namespaces", tokens["devonly"])[0] == 200
    assert_error(*call(srv, "GET", "/v1/main/namespaces", tokens["devonly"]), 404, "NoSuchWarehouseException")
    assert call(srv, "GET", "/v1/main/namespaces/default/tables/titanic", tokens["reader"])[0] == 200
    assert_error(*call(srv, "POST", "/v1/dev/namespaces", tokens["reader"], {"namespace": ["x"]}), 403,
                 "ForbiddenException")


def test_read_only_refs_refuse_writes(served):
    srv, tokens = served
    head = weir_list("log", "-n", "1", lake=srv.lake)[0]["hash"]
    for prefix in ("v1", head, head[:10], "dev~0"):
        s, d = call(srv, "POST", f"/v1/{prefix}/namespaces/default/tables/titanic", tokens["engine"],
                    {"requirements": [], "updates": []})
        assert_error(s, d, 403, "ForbiddenException")
        assert "read-only" in d["error"]["message"]
        assert call(srv, "GET", f"/v1/{prefix}/namespaces/default/tables/titanic", tokens["engine"])[0] == 200


@pytest.mark.parametrize("raw", [b"{bad", b"[1,2]", b"\xff\xfe", b'{"requirements": 3, "updates": []}',
                                 b'{"requirements": [], "updates": [{"action": 5}]}',
                                 b'{"requirements": [{"type": "assert-nope"}], "updates": []}',
                                 b'{"requirements": [], "updates": [{"action": "add-snapshot", "snapshot": {}}]}',
                                 b"[" * 5000 + b"]" * 5000])
def test_malformed_bodies_are_400(served, raw):
    srv, tokens = served
    s, d = call(srv, "POST", "/v1/dev/namespaces/default/tables/titanic", tokens["engine"], raw=raw)
    assert_error(s, d, 400, "BadRequestException")
    assert weir_list("log", "dev", "-n", "1", lake=srv.lake)[0]["message"].startswith("import")


def test_oversize_body_is_413(served):
    srv, tokens = served
    s, d = call(srv, "POST", "/v1/dev/transactions/commit", tokens["engine"], raw=b" " * (9 << 20))
    assert_error(s, d, 413, "RequestTooLargeException")


def test_unknown_routes_and_methods(served):
    srv, tokens = served
    assert_error(*call(srv, "GET", "/v1/dev/nothing", tokens["engine"]), 404, "NoSuchEndpointException")
    assert_error(*call(srv, "PUT", "/v1/dev/namespaces", tokens["engine"], {}), 405, "MethodNotAllowedException")
    assert_error(*call(srv, "GET", "/v1/dev/namespaces/a%1Fb", tokens["engine"]), 400, "BadRequestException")
    assert_error(*call(srv, "GET", "/v1/dev/namespaces/default/tables/nope", tokens["engine"]), 404,
                 "NoSuchTableException")
    assert_error(*call(srv, "GET", "/v1/dev/namespaces/nope", tokens["engine"]), 404, "NoSuchNamespaceException")


def test_stale_requirement_is_409_and_writes_nothing(served):
    srv, tokens = served
    s, d = call(srv, "GET", "/v1/dev/namespaces/default/tables/titanic", tokens["engine"])
    uuid = d["metadata"]["table-uuid"]
    head = weir_list("log", "dev", "-n", "1", lake=srv.lake)[0]["hash"]
    for req in ({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 1},
                {"type": "assert-table-uuid", "uuid": "00000000-0000-0000-0000-000000000000"},
                {"type": "assert-current-schema-id", "current-schema-id": 99}):
        s, d = call(srv, "POST", "/v1/dev/namespaces/default/tables/titanic", tokens["engine"],
                    {"requirements": [req], "updates": [{"action": "set-properties", "updates": {"k": "v"}}]})
        assert_error(s, d, 409, "CommitFailedException")
    assert weir_list("log", "dev", "-n", "1", lake=srv.lake)[0]["hash"] == head
    # A properties change whose requirements hold is one weir commit.
    s, d = call(srv, "POST", "/v1/dev/namespaces/default/tables/titanic", tokens["engine"],
                {"requirements": [{"type": "assert-table-uuid", "uuid": uuid}],
                 "updates": [{"action": "set-properties", "updates": {"owner": "ops"}}]})
    assert s == 200 and d["metadata"]["properties"]["owner"] == "ops"
    assert d["metadata"]["properties"]["gc.enabled"] == "false"
    for k, v in (("weir.contract", "{}"), ("gc.enabled", "true")):
        s, d = call(srv, "POST", "/v1/dev/namespaces/default/tables/titanic", tokens["engine"],
                    {"requirements": [], "updates": [{"action": "set-properties", "updates": {k: v}}]})
        assert_error(s, d, 403, "ForbiddenException")


def test_protected_branch_takes_only_merges(served, tmp_path):
    srv, tokens = served
    import weir as sdk

    assert weir("branch", "create", "prot", lake=srv.lake).returncode == 0
    assert weir("branch", "create", "feature", "--from", "prot", lake=srv.lake).returncode == 0
    client = sdk.Client(srv.lake)
    client.protect_branch("prot")
    r = weir("import", TITANIC, "--table", "t2", "--branch", "prot", lake=srv.lake)
    assert r.returncode == 2 and "protected" in r.stderr
    s, d = call(srv, "POST", "/v1/prot/namespaces/default/tables/titanic", tokens["engine"],
                {"requirements": [], "updates": [{"action": "set-properties", "updates": {"a": "b"}}]})
    assert_error(s, d, 403, "ForbiddenException")
    assert "protected" in d["error"]["message"]
    # A merge is how it changes.
    assert weir("import", TITANIC, "--table", "t2", "--branch", "feature", lake=srv.lake).returncode == 0
    assert weir("merge", "feature", "--into", "prot", lake=srv.lake).returncode == 0
    assert weir("tables", "--ref", "prot", lake=srv.lake).stdout.count("t2") == 1
    client.protect_branch("prot", protected=False)
    assert weir("import", TITANIC, "--table", "t3", "--branch", "prot", lake=srv.lake).returncode == 0


def test_a_gated_branch_takes_no_rest_commit_and_only_merges_that_pass(served, tmp_path):
    """The merge gate (docs/versioning.md) cannot be bypassed through the REST catalog: a
    gated branch is protected, so a REST commit to it is refused; a merge that breaks the
    required project's plan is refused too (exit 3), one that does not goes through."""
    srv, tokens = served
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "reads.sql").write_text("-- weir: name=reads\nSELECT name, fare FROM people\n")
    (tmp_path / "people.csv").write_text("name,fare\nann,1.5\n")
    (tmp_path / "nofare.csv").write_text("name\nbob\n")
    (tmp_path / "more.csv").write_text("name,fare\ncid,2.5\n")
    for args in (("branch", "create", "gated"), ("import", tmp_path / "people.csv", "--table", "people", "--branch",
                                                 "gated"),
                 ("branch", "create", "nofare", "--from", "gated"), ("branch", "create", "more", "--from", "gated"),
                 ("branch", "protect", "gated", "--require-check", str(proj)),
                 ("import", tmp_path / "nofare.csv", "--table", "people", "--mode", "replace", "--branch", "nofare"),
                 ("import", tmp_path / "more.csv", "--table", "people", "--mode", "append", "--branch", "more")):
        r = weir(*args, lake=srv.lake)
        assert r.returncode == 0, r.stderr
    s, d = call(srv, "POST", "/v1/gated/namespaces/default/tables/people", tokens["engine"],
                {"requirements": [], "updates": [{"action": "set-properties", "updates": {"a": "b"}}]})
    assert_error(s, d, 403, "ForbiddenException")
    r = weir("merge", "nofare", "--into", "gated", lake=srv.lake)
    assert r.returncode == 3 and "model reads" in r.stderr, r.stderr
    r = weir("merge", "more", "--into", "gated", lake=srv.lake)
    assert r.returncode == 0, r.stderr


def test_transaction_commits_several_tables_in_one_weir_commit(served):
    srv, tokens = served
    assert weir("branch", "create", "tx", lake=srv.lake).returncode == 0
    assert weir("import", TITANIC, "--table", "second", "--branch", "tx", lake=srv.lake).returncode == 0
    before = weir_list("log", "tx", "-n", "1", lake=srv.lake)[0]["hash"]
    body = {"table-changes": [
        {"identifier": {"namespace": ["default"], "name": n}, "requirements": [],
         "updates": [{"action": "set-properties", "updates": {"batch": "1"}}]} for n in ("titanic", "second")]}
    s, _ = call(srv, "POST", "/v1/tx/transactions/commit", tokens["engine"], body)
    assert s == 204
    log = weir_list("log", "tx", "-n", "2", lake=srv.lake)
    assert log[1]["hash"] == before and sorted(c["table"] for c in log[0]["tables_changed"]) == [
        "default.second", "default.titanic"]


def test_metrics_in_prometheus_format(served):
    srv, tokens = served
    s, text = call(srv, "GET", "/metrics", tokens["reader"])
    assert s == 200
    assert '# TYPE weir_rest_requests_total counter' in text
    assert 'weir_rest_requests_total{route="getConfig",code="401"}' in text
    assert 'weir_rest_request_duration_seconds_bucket{route="loadTable",le="+Inf"}' in text
    assert 'weir_rest_commits_total{result="conflict"}' in text


def test_serve_finds_the_lake_through_weir_lake(tmp_path):
    """Found by a new user: `weir serve` took only --lake, though its help (as every
    command's) says $WEIR_LAKE is the default."""
    import os
    import signal
    import subprocess

    from conftest import weir_bin

    lake = tmp_path / "lake"
    assert weir("init", lake).returncode == 0
    p = subprocess.Popen([str(weir_bin()), "serve", "--port", "0"], cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=dict(os.environ, WEIR_LAKE=str(lake)))
    assert p.stdout is not None
    line = p.stdout.readline()  # the readiness line, or EOF when it exits
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert line.startswith("weir serve: listening on http://127.0.0.1:"), (line, err)
    assert p.returncode == 0, err
