"""`weir lsp` (issue 16): a JSON-RPC client speaking LSP over stdio to the server the CLI
starts: diagnostics on open and save from the planner of `weir check` (at the exact
expression), hover with type, nullability, doc and lineage, completion of tables and
columns."""
from __future__ import annotations

import json
import os
import subprocess
import threading

import pytest

from conftest import ROOT, TITANIC, weir, weir_bin

pytestmark = pytest.mark.cli

CONTRACT = ROOT / "examples" / "titanic" / "project" / "contracts" / "titanic.yml"


class Rpc:
    """LSP framing (Content-Length headers) over a child's stdin/stdout; a reader thread
    hands every message over a condition variable (no sleeps)."""

    def __init__(self, lake):
        env = dict(os.environ, WEIR_PYTHON=str(ROOT / ".venv" / "bin" / "python"))
        self.p = subprocess.Popen([str(weir_bin()), "--lake", str(lake), "lsp"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.msgs: list[dict] = []
        self.cv = threading.Condition()
        self.n = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        f = self.p.stdout
        while True:
            headers = {}
            while True:
                line = f.readline()
                if not line:
                    with self.cv:
                        self.msgs.append({"eof": True})
                        self.cv.notify_all()
                    return
                line = line.decode().strip()
                if not line:
                    break
                k, _, v = line.partition(":")
                headers[k.lower()] = v.strip()
            body = f.read(int(headers["content-length"]))
            with self.cv:
                self.msgs.append(json.loads(body))
                self.cv.notify_all()

    def send(self, method, params, request=True):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.n += 1
            msg["id"] = self.n
        data = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.p.stdin.flush()
        return msg.get("id")

    def wait(self, pred, timeout=120):
        with self.cv:
            ok = self.cv.wait_for(lambda: any(pred(m) for m in self.msgs) or any(m.get("eof") for m in self.msgs),
                                  timeout=timeout)
            assert ok, "no answer from the language server"
            for m in self.msgs:
                if pred(m):
                    self.msgs.remove(m)
                    return m
            raise AssertionError(f"the language server exited: {self.p.stderr.read().decode()}")

    def request(self, method, params):
        i = self.send(method, params)
        m = self.wait(lambda m: m.get("id") == i)
        assert "error" not in m, m
        return m["result"]

    def diagnostics(self, uri):
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri)["params"]["diagnostics"]

    def close(self):
        self.request("shutdown", None)
        self.send("exit", None, request=False)
        self.p.wait(timeout=60)
        self.p.stdout.close()
        self.p.stderr.close()


@pytest.fixture
def project(lake, tmp_path):
    assert weir("import", TITANIC, "--table", "titanic", "--contract", CONTRACT, lake=lake).returncode == 0
    (tmp_path / "b.csv").write_text("PassengerId,x\n1,5\n")
    assert weir("import", tmp_path / "b.csv", "--table", "b", lake=lake).returncode == 0
    proj = tmp_path / "proj"
    (proj / "contracts").mkdir(parents=True)
    (proj / "weir_project.yml").write_text("name: p\n")
    (proj / "contracts" / "out.yml").write_text(
        "contract:\n  name: Out\n  columns:\n    - {name: id, type: Int64}\n    - {name: x, type: Int64}\n")
    return lake, proj


def test_diagnostics_on_open_and_save_hover_and_completion(project):
    lake, proj = project
    j = proj / "j.sql"
    j.write_text("-- weir: name=j\n-- weir: output_schema=Out\nSELECT t.PassengerId AS id, b.x\n"
                 "FROM titanic t LEFT JOIN b USING (PassengerId)\n")
    uri = j.resolve().as_uri()
    rpc = Rpc(lake)
    try:
        init = rpc.request("initialize", {"processId": None, "rootUri": proj.as_uri(), "capabilities": {}})
        caps = init["capabilities"]
        assert caps["hoverProvider"] and "completionProvider" in caps
        rpc.send("initialized", {}, request=False)
        rpc.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "sql", "version": 1,
                                                           "text": j.read_text()}}, request=False)
        [d] = rpc.diagnostics(uri)
        assert "required column \"x\" (output schema Out) is fed by b.x, which may be null" in d["message"]
        assert d["severity"] == 1 and d["source"] == "weir"
        # The exact range of the expression: line 3 (0-based 2), "b.x" after "... AS id, ".
        col = j.read_text().splitlines()[2].index("b.x")
        assert d["range"] == {"start": {"line": 2, "character": col}, "end": {"line": 2, "character": col + 3}}

        # Fixed and saved: the diagnostics go away.
        j.write_text("-- weir: name=j\n-- weir: output_schema=Out\nSELECT t.PassengerId AS id, COALESCE(b.x, 0) AS x\n"
                     "FROM titanic t LEFT JOIN b USING (PassengerId)\n")
        rpc.send("textDocument/didSave", {"textDocument": {"uri": uri}}, request=False)
        assert rpc.diagnostics(uri) == []

        # A YAML contract with a mistake: diagnosed in the contract's own file.
        y = proj / "contracts" / "out.yml"
        y.write_text("contract:\n  name: Out\n  columns:\n    - {name: id, type: Int64}\n    - {name: x, type: Nope}\n")
        yuri = y.resolve().as_uri()
        rpc.send("textDocument/didSave", {"textDocument": {"uri": yuri}}, request=False)
        [yd] = rpc.diagnostics(yuri)
        assert "Nope" in yd["message"] and yd["range"]["start"]["line"] == 4

        text = j.read_text()
        rpc.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"text": text}]}, request=False)
        line = text.splitlines()[3]
        h = rpc.request("textDocument/hover", {"textDocument": {"uri": uri},
                                               "position": {"line": 3, "character": line.index("titanic") + 2}})
        assert h["contents"]["kind"] == "markdown"
        assert "Titanic passengers (Kaggle training set)" in h["contents"]["value"]
        line2 = text.splitlines()[2]
        h = rpc.request("textDocument/hover", {"textDocument": {"uri": uri},
                                               "position": {"line": 2, "character": line2.index("PassengerId") + 1}})
        assert "**default.titanic.PassengerId**: Int64, required" in h["contents"]["value"]
        assert "Passenger id, 1 to 891." in h["contents"]["value"]

        c = rpc.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 7}})
        labels = {i["label"]: i for i in c["items"]}
        assert {"titanic", "b", "Age", "Cabin", "x"} <= set(labels)
        assert labels["Age"]["detail"] == "default.titanic: Float64, nullable"
    finally:
        rpc.close()


def test_a_narrowing_cast_is_a_warning_at_its_line(project):
    """The plan's warning for a narrowing CAST (docs/engine.md, "Narrowing casts") is a
    Warning diagnostic on the cast's line; the checked form has none."""
    lake, proj = project
    j = proj / "k.sql"
    j.write_text("-- weir: name=k\nSELECT PassengerId,\n  CAST(Fare AS INTEGER) AS fare\nFROM titanic\n")
    uri = j.resolve().as_uri()
    rpc = Rpc(lake)
    try:
        rpc.request("initialize", {"processId": None, "rootUri": proj.as_uri(), "capabilities": {}})
        rpc.send("initialized", {}, request=False)
        rpc.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "sql", "version": 1,
                                                           "text": j.read_text()}}, request=False)
        [d] = rpc.diagnostics(uri)
        assert "CAST(Fare AS INTEGER) narrows DOUBLE to INTEGER" in d["message"], d
        assert d["severity"] == 2 and d["range"]["start"]["line"] == 2
        j.write_text("-- weir: name=k\nSELECT PassengerId,\n  weir_checked_cast(Fare, 'INTEGER') AS fare\nFROM titanic\n")
        rpc.send("textDocument/didSave", {"textDocument": {"uri": uri}}, request=False)
        assert rpc.diagnostics(uri) == []
    finally:
        rpc.close()
