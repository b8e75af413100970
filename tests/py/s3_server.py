"""A real S3-compatible server on loopback for the object-storage tests: moto's server
mode (PyPI `moto[server]`, pinned in python/requirements-dev.txt), started and stopped by
the suite.

Authentication is enforced (moto's INITIAL_NO_AUTH_ACTION_COUNT): the first four
requests, which create an IAM user with an access key allowed s3:* and the test bucket,
run unauthenticated; every later request must carry a valid SigV4 signature of that key.
So the tests check libcurl's and DuckDB's signatures, and wrong credentials are refused
as on AWS.

Readiness is a hand-off, not a sleep: the server prints "Running on http://HOST:PORT" on
stderr once it listens, and the fixture reads its output until that line (bounded by a
deadline), then connects once to be sure.
"""
from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import selectors
import socket
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUCKET = "weir-test"


@dataclasses.dataclass
class S3Server:
    endpoint: str
    access_key: str
    secret_key: str
    bucket: str
    proc: subprocess.Popen

    def env(self, **extra: str) -> dict[str, str]:
        """The variables a weir process needs for this server (nothing from ~/.aws)."""
        e = {"AWS_ACCESS_KEY_ID": self.access_key, "AWS_SECRET_ACCESS_KEY": self.secret_key,
             "AWS_ENDPOINT_URL": self.endpoint, "AWS_REGION": "us-east-1",
             "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/credentials", "AWS_CONFIG_FILE": "/nonexistent/config"}
        e.update(extra)
        return e

    def client(self):
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                            aws_access_key_id=self.access_key, aws_secret_access_key=self.secret_key)

    def keys(self, prefix: str) -> list[str]:
        out, token = [], None
        while True:
            kw = {"Bucket": self.bucket, "Prefix": prefix}
            if token:
                kw["ContinuationToken"] = token
            r = self.client().list_objects_v2(**kw)
            out += [o["Key"] for o in r.get("Contents", [])]
            token = r.get("NextContinuationToken")
            if not token:
                return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(deadline_s: float = 60.0) -> S3Server:
    """Starts moto's server, waits until it listens, creates the user and the bucket.
    Raises RuntimeError (with the server's output) when it cannot start."""
    moto = ROOT / ".venv" / "bin" / "moto_server"
    if not moto.exists():
        raise RuntimeError(f"{moto} is missing: run scripts/bootstrap.sh (moto[server] is in requirements-dev.txt)")
    port = _free_port()
    env = dict(os.environ, INITIAL_NO_AUTH_ACTION_COUNT="4", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([str(moto), "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env)
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    seen, ready = b"", False
    end = time.monotonic() + deadline_s
    while not ready and time.monotonic() < end and proc.poll() is None:
        if sel.select(timeout=max(0.0, end - time.monotonic())):
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
            ready = f"127.0.0.1:{port}".encode() in seen and b"Running on" in seen
    sel.close()
    if not ready:
        proc.kill()
        proc.wait()
        raise RuntimeError(f"moto_server did not start on port {port}: {seen.decode(errors='replace')[-2000:]}")
    socket.create_connection(("127.0.0.1", port), timeout=5).close()
    # Its later output is not read: send it nowhere so a full pipe cannot block it.
    proc.stdout.close()
    endpoint = f"http://127.0.0.1:{port}"
    import boto3

    kw = {"endpoint_url": endpoint, "region_name": "us-east-1", "aws_access_key_id": "bootstrap",
          "aws_secret_access_key": "bootstrap"}
    iam = boto3.client("iam", **kw)
    iam.create_user(UserName="weir")
    iam.put_user_policy(UserName="weir", PolicyName="s3", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
    key = iam.create_access_key(UserName="weir")["AccessKey"]
    boto3.client("s3", **kw).create_bucket(Bucket=BUCKET)
    return S3Server(endpoint, key["AccessKeyId"], key["SecretAccessKey"], BUCKET, proc)


def stop(server: S3Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()


if __name__ == "__main__":  # a server for trying weir by hand: prints its variables
    s = start()
    print("\n".join(f"export {k}={v}" for k, v in s.env().items()), flush=True)
    print(f"# bucket {s.bucket}; Ctrl-C stops it", file=sys.stderr)
    try:
        s.proc.wait()
    except KeyboardInterrupt:
        stop(s)
