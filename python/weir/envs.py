"""``python -m weir.envs``: the Python environments ``@weir.python`` asks for.

``python -m weir.envs prepare --python 3.11 --pip '{"polars": "1.*"}'`` prints the path of
an interpreter that has the SDK's own dependencies plus the requested packages. The
environment is a virtual environment under ``$WEIR_CACHE`` (default ``~/.cache/weir``)
``/envs/<key>``, where the key hashes the Python version, the requirements and the
parent environment (the one running this command). When the versions match, it sees the
parent environment's packages through a ``.pth`` file, so requirements the parent already
satisfies install nothing; otherwise the SDK's dependencies are installed into it. It is
created once and reused; a lock file keeps two runs from building the same environment
at once, and an environment whose build was interrupted is rebuilt.

Commands:
    prepare --python V [--pip JSON] [--json]   create (once) and print the interpreter
    list [--json]                               the cached environments

Example:
    $ python -m weir.envs prepare --python 3.11 --pip '{"polars": "1.*"}'
    /root/.cache/weir/envs/3.11-5f0c2b1a9e3d4c21/bin/python
"""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import site
import subprocess
import sys
import time
from collections.abc import Generator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

__all__ = ["prepare", "cache_root", "requirements", "env_key", "find_interpreter", "main", "EnvError"]

#: The SDK's own runtime dependencies (installed when the parent cannot be shared).
SDK_REQUIREMENTS = ("pyarrow>=15",)
_MARKER = ".weir-env.json"


class EnvError(Exception):
    """An environment could not be prepared: no such Python, a bad requirement, or pip
    failed (the message includes pip's output).

    Example:
        >>> requirements({"polars": "latest"})
        Traceback (most recent call last):
        weir.envs.EnvError: bad version 'latest' for polars: use '1.*', '1.37', '>=1,<2' or ''
    """


def cache_root() -> Path:
    """``$WEIR_CACHE/envs`` (default ``~/.cache/weir/envs``).

    Example:
        >>> str(cache_root()).endswith("envs")
        True
    """
    base = os.environ.get("WEIR_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "weir")
    return Path(base) / "envs"


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]*(\[[A-Za-z0-9._,\-]+\])?$")


def requirements(pip: Mapping[str, str]) -> list[str]:
    """pip requirement strings for ``@weir.python(pip=...)``, sorted: ``"1.*"`` and
    ``"1.37"`` mean ``==``, a spec starting with an operator is kept, ``""``/``"*"`` means
    any version.

    Raises:
        EnvError: a malformed name or version.

    Example:
        >>> requirements({"polars": "1.*", "duckdb": ">=1.0", "rich": ""})
        ['duckdb>=1.0', 'polars==1.*', 'rich']
    """
    out: list[str] = []
    for name, spec in sorted(pip.items()):
        if not _NAME.match(name):
            raise EnvError(f"bad package name {name!r}")
        s = spec.strip()
        if s in ("", "*"):
            out.append(name)
        elif s[0] in "<>=!~":
            out.append(name + s)
        elif s[0].isdigit():
            out.append(f"{name}=={s}")
        else:
            raise EnvError(f"bad version {spec!r} for {name}: use '1.*', '1.37', '>=1,<2' or ''")
    return out


def _version_of(interpreter: str) -> str | None:
    try:
        out = subprocess.run([interpreter, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _matches(version: str, full: str) -> bool:
    return full == version or full.startswith(version + ".")


def find_interpreter(version: str) -> str:
    """An interpreter for ``version`` (``"3.11"`` or ``"3.11.7"``): this one if it
    matches, else ``python3.11`` on PATH.

    Raises:
        EnvError: none is installed.

    Example:
        >>> find_interpreter("%d.%d" % sys.version_info[:2]) == sys.executable
        True
    """
    if not re.match(r"^3\.\d+(\.\d+)?$", version):
        raise EnvError(f"bad Python version {version!r}: use e.g. 3.11")
    mine = "%d.%d.%d" % sys.version_info[:3]
    if _matches(version, mine):
        return sys.executable
    short = ".".join(version.split(".")[:2])
    for cand in (f"python{short}", f"python{version}"):
        path = shutil.which(cand)
        if path:
            full = _version_of(path)
            if full and _matches(version, full):
                return path
    raise EnvError(f"Python {version} is not installed (looked for python{short} on PATH); install it or change "
                   "the model's @weir.python version")


def _parent_site_dirs() -> list[str]:
    dirs: list[str] = []
    for d in [*site.getsitepackages(), *([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])]:
        if os.path.isdir(d) and d not in dirs:
            dirs.append(d)
    return dirs


def _sdk_dir() -> str:
    """The folder holding the ``weir`` package (so the environment imports this SDK)."""
    return str(Path(__file__).resolve().parent.parent)


def env_key(version: str, reqs: Sequence[str]) -> str:
    """The cache key of an environment: a hash of the Python version, the requirements
    and the parent environment (its interpreter, prefix, site folders and this SDK).

    Example:
        >>> env_key("3.11", ["polars==1.*"]).startswith("3.11-")
        True
    """
    doc = {"python": version, "pip": sorted(reqs), "parent": sys.prefix,
           "parent_python": os.path.realpath(sys.executable), "parent_version": list(sys.version_info[:3]),
           "site": _parent_site_dirs(), "sdk": _sdk_dir()}
    digest = hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]
    return f"{version}-{digest}"


def _env_python(env: Path) -> Path:
    return env / "bin" / "python"


def _env_site(env_python: Path) -> str:
    out = subprocess.run([str(env_python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise EnvError(f"cannot query the new environment's site folder: {out.stderr.strip()}")
    return out.stdout.strip()


@contextlib.contextmanager
def _locked(path: Path) -> Generator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _pip_install(env_python: Path, reqs: Sequence[str], log: list[str]) -> None:
    if not reqs:
        return
    base = ["install", "--disable-pip-version-check", "--no-input", "--quiet", *reqs]
    have_pip = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode == 0
    if have_pip:
        cmd = [sys.executable, "-m", "pip", "--python", str(env_python), *base]
    else:
        ens = subprocess.run([str(env_python), "-m", "ensurepip", "--upgrade"], capture_output=True, text=True)
        if ens.returncode != 0:
            raise EnvError(f"no pip to install {', '.join(reqs)}: {ens.stderr.strip()}")
        cmd = [str(env_python), "-m", "pip", *base]
    out = subprocess.run(cmd, capture_output=True, text=True)
    log.append(" ".join(cmd))
    if out.returncode != 0:
        raise EnvError(f"pip could not install {', '.join(reqs)}:\n{(out.stdout + out.stderr).strip()}")


def prepare(version: str, pip: Mapping[str, str] | None = None, *, cache: str | os.PathLike[str] | None = None
            ) -> tuple[Path, bool]:
    """Creates (once) the environment for ``version`` and ``pip`` and returns (its
    interpreter, whether it was created now).

    Raises:
        EnvError: no such Python, bad requirements, or pip failed.

    Example:
        >>> python, created = prepare("3.11", {"polars": "1.*"})   # doctest: +SKIP
    """
    reqs = requirements(pip or {})
    root = Path(cache) / "envs" if cache is not None else cache_root()
    key = env_key(version, reqs)
    env = root / key
    marker = env / _MARKER
    if marker.is_file():
        return _env_python(env), False
    with _locked(root / f"{key}.lock"):
        if marker.is_file():
            return _env_python(env), False
        if env.exists():
            shutil.rmtree(env)  # an interrupted build
        interpreter = find_interpreter(version)
        made = subprocess.run([interpreter, "-m", "venv", "--without-pip", str(env)], capture_output=True, text=True)
        if made.returncode != 0:
            shutil.rmtree(env, ignore_errors=True)
            raise EnvError(f"cannot create a virtual environment with {interpreter}: {made.stderr.strip()}")
        py = _env_python(env)
        log: list[str] = []
        try:
            shares_parent = _version_of(str(py)) == "%d.%d.%d" % sys.version_info[:3]
            lines = ["# written by weir.envs: this environment sees the SDK (and its parent's packages)"]
            if shares_parent:
                lines += [f"import site; site.addsitedir({d!r})" for d in _parent_site_dirs()]
            lines.append(_sdk_dir())
            Path(_env_site(py), "_weir_parent.pth").write_text("\n".join(lines) + "\n", encoding="utf-8")
            wanted = list(reqs) if shares_parent else [*SDK_REQUIREMENTS, *reqs]
            _pip_install(py, wanted, log)
            marker.write_text(json.dumps({"python": version, "pip": dict(pip or {}), "requirements": reqs,
                                          "interpreter": str(py), "base": interpreter,
                                          "shares_parent": shares_parent, "parent": sys.prefix,
                                          "created": time.time(), "log": log}, indent=1) + "\n",
                              encoding="utf-8")
        except BaseException:
            shutil.rmtree(env, ignore_errors=True)
            raise
        return py, True


def _list(root: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if not root.is_dir():
        return out
    for env in sorted(root.iterdir()):
        marker = env / _MARKER
        if env.is_dir() and marker.is_file():
            try:
                doc = cast("dict[str, Any]", json.loads(marker.read_text(encoding="utf-8")))
            except ValueError:
                continue
            doc["path"] = str(env)
            out.append(doc)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m weir.envs``; returns the exit status.

    Example:
        $ python -m weir.envs prepare --python 3.11 --pip '{"polars": "1.*"}'
    """
    parser = argparse.ArgumentParser(prog="python -m weir.envs",
                                     description="Prepare and list the Python environments of weir models.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="create (once) an environment and print its interpreter",
                       description="Create (once) an environment and print its interpreter. Example: "
                                   "python -m weir.envs prepare --python 3.11 --pip '{\"polars\": \"1.*\"}'")
    p.add_argument("--python", required=True, help="Python version, e.g. 3.11")
    p.add_argument("--pip", default="{}", help='requirements as JSON, e.g. {"polars": "1.*"}')
    p.add_argument("--json", action="store_true", help="print {python, created} as JSON")
    lp = sub.add_parser("list", help="list cached environments")
    lp.add_argument("--json", action="store_true")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.command == "list":
        envs = _list(cache_root())
        if args.json:
            print(json.dumps(envs, indent=1))
        else:
            for e in envs:
                print(f"{e['path']}  python {e.get('python')}  {' '.join(e.get('requirements') or [])}")
        return 0
    try:
        pip_doc = json.loads(args.pip)
        if not isinstance(pip_doc, dict) or not all(isinstance(v, str) for v in cast("dict[str, Any]", pip_doc).values()):
            raise ValueError("--pip must be a JSON object of package: version")
        python, created = prepare(str(args.python), cast("dict[str, str]", pip_doc))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except EnvError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"python": str(python), "created": created}))
    else:
        print(python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
