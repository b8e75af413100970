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
    prepare --json                              this interpreter (no environment)
    list [--json]                               the cached environments

With ``--json`` it prints ``{"python": ..., "created": ..., "read": [...]}``: ``read`` is
what the interpreter reads and runs (its installation, the environment, site-packages and
this SDK), which the model sandbox lets it read (docs/sandbox.md). The folders are found
without running the environment's interpreter with its site-packages (no ``.pth`` file of
a package is executed to find them): this process's own ``sys.path`` for the parent, and
the environment's folder and its base installation for an environment.

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

__all__ = ["prepare", "cache_root", "requirements", "env_key", "find_interpreter", "sandbox_roots", "main",
           "EnvError"]

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
    mine = "{}.{}.{}".format(*sys.version_info[:3])
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


def _own_roots() -> list[str]:
    """What this interpreter reads: its prefixes and installation, and its ``sys.path``
    except the first entry (the current folder or the script's, never a library)."""
    cands = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.realpath(sys.executable))]
    path = sys.path if getattr(sys.flags, "safe_path", False) else sys.path[1:]
    cands += [p for p in path if p and os.path.isabs(p)]
    cands.append(_sdk_dir())
    return _distinct(cands)


def _distinct(paths: Sequence[str]) -> list[str]:
    out: list[str] = []
    for p in paths:
        if not p or not os.path.exists(p):
            continue
        real = os.path.realpath(p)
        if real != "/" and real not in out:
            out.append(real)
    return out


def _base_of(interpreter: str) -> list[str]:
    """The installation an interpreter comes from, asked with no site-packages (-I -S:
    nothing of an environment runs)."""
    try:
        out = subprocess.run([interpreter, "-I", "-S", "-c",
                              "import sys, json; print(json.dumps([sys.base_prefix, sys.base_exec_prefix]))"],
                             capture_output=True, text=True, timeout=60)
        if out.returncode == 0:
            return [str(p) for p in json.loads(out.stdout)]
    except (OSError, ValueError, subprocess.TimeoutExpired):
        pass
    return [os.path.dirname(os.path.dirname(os.path.realpath(interpreter)))]


def sandbox_roots(python: str | os.PathLike[str] | None = None) -> list[str]:
    """The folders an interpreter reads and runs, for the model sandbox: this one's
    (``python`` None or this interpreter), or those of an environment :func:`prepare`
    made (its folder, its base installation, and, when it shares this parent, the
    parent's).

    Example:
        >>> sys.prefix in sandbox_roots() or os.path.realpath(sys.prefix) in sandbox_roots()
        True
    """
    if python is None or os.path.realpath(python) == os.path.realpath(sys.executable) and \
            os.path.abspath(python) == os.path.abspath(sys.executable):
        return _own_roots()
    env = Path(python).parent.parent
    marker = env / _MARKER
    doc: dict[str, Any] = {}
    if marker.is_file():
        try:
            doc = cast("dict[str, Any]", json.loads(marker.read_text(encoding="utf-8")))
        except ValueError:
            doc = {}
    roots = [str(env), *[str(p) for p in doc.get("base_roots") or _base_of(str(python))]]
    if doc.get("shares_parent", True):
        roots += _own_roots()
    else:
        roots.append(_sdk_dir())
    return _distinct(roots)


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
            shares_parent = _version_of(str(py)) == "{}.{}.{}".format(*sys.version_info[:3])
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
                                          "base_roots": _base_of(str(py)),
                                          "created": time.time(), "log": log}, indent=1) + "\n",
                              encoding="utf-8")
        except BaseException:
            shutil.rmtree(env, ignore_errors=True)
            raise
        return py, True


def _check_specifier(name: str, requirement: str) -> None:
    """Refuses a requirement pip would refuse (``polars>=1,<``), with packaging's parser
    when it is importable (pip carries a copy)."""
    try:
        from packaging.requirements import InvalidRequirement, Requirement
    except ImportError:
        try:
            from pip._vendor.packaging.requirements import InvalidRequirement, Requirement  # type: ignore[no-redef]
        except ImportError:
            return
    try:
        Requirement(requirement)
    except InvalidRequirement as e:
        raise EnvError(f"bad version for {name}: {requirement!r} is not a pip requirement ({e})") from None


def check(version: str, pip: Mapping[str, str] | None = None) -> str:
    """What :func:`prepare` needs, checked without building or running anything: the
    version is well formed and an interpreter for it is installed (this one, or
    ``python3.X`` on PATH), and every requirement parses. Returns the interpreter found.
    Discovery runs it for every ``@weir.python``, so that ``weir check`` refuses a model
    asking for a Python that is not there, or an invalid pip specifier, rather than the
    run failing at that model after the models before it ran. (:func:`prepare` still
    asks the interpreter for its exact version.)

    Raises:
        EnvError: a malformed version or requirement, or no such Python.

    Example:
        >>> check("%d.%d" % sys.version_info[:2]) == sys.executable
        True
    """
    reqs = requirements(pip or {})
    for name, req in zip(sorted(pip or {}), reqs, strict=True):
        _check_specifier(name, req)
    if not re.match(r"^3\.\d+(\.\d+)?$", version):
        raise EnvError(f"bad Python version {version!r}: use e.g. 3.11")
    if _matches(version, "{}.{}.{}".format(*sys.version_info[:3])):
        return sys.executable
    short = ".".join(version.split(".")[:2])
    for cand in (f"python{short}", f"python{version}"):
        path = shutil.which(cand)
        if path:
            return path
    raise EnvError(f"Python {version} is not installed (looked for python{short} on PATH); install it or change "
                   "the model's @weir.python version")


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
    p.add_argument("--python", help="Python version, e.g. 3.11 (none: this interpreter, no environment)")
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
        if not isinstance(pip_doc, dict) or not all(isinstance(v, str)
                                                     for v in cast("dict[str, Any]", pip_doc).values()):
            raise ValueError("--pip must be a JSON object of package: version")
        if args.python is None:
            if pip_doc:
                raise ValueError("--pip needs --python")
            python, created = Path(sys.executable), False
        else:
            python, created = prepare(str(args.python), cast("dict[str, str]", pip_doc))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except EnvError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"python": str(python), "created": created,
                          "read": sandbox_roots(None if args.python is None else python)}))
    else:
        print(python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
