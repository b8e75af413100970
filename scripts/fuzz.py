#!/usr/bin/env python3
"""Runs weir's libFuzzer targets (tests/fuzz/, docs/fuzzing.md) and prints what they did.

    scripts/fuzz.py [--build build-fuzz] [--seconds 60] [--check] [TARGET ...]

Each target first replays its regression inputs (tests/fuzz/regressions/<target>/, the
reproducers of bugs fixed: each must now pass), then fuzzes for --seconds, starting from
the seed corpus (tests/fuzz/corpus/<target>/) and its dictionary (tests/fuzz/dict/). The
corpus grown on the way goes to a temporary folder (--keep DIR keeps it), so a run never
writes into the repository; reproducers of what it finds are copied to --artifacts
(default build-fuzz/artifacts/<target>/).

Without --check (make fuzz) a target runs in libFuzzer's fork mode and goes on after a
crash, so the table counts every crash, leak, timeout and out-of-memory it found. With
--check (make test) a target stops at its first finding and the script exits 1: any
crash, leak, UB report, timeout or failed regression input fails the run. The exit status
is 0 only when nothing was found.
"""
import argparse
import base64
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = ["contract_yaml", "contract_ir", "sql_header", "ref", "metadata_json",
           "avro_manifest", "csv_options", "discovery", "rest_request"]

# Per input: an input that takes longer than TIMEOUT seconds is a finding (a parser must
# answer quickly whatever it is given); RSS_MB bounds memory the same way.
TIMEOUT = 10
RSS_MB = 2048
# Sanitizer settings of every run: any UBSan report is fatal (the targets are also built
# with -fno-sanitize-recover), leaks are findings, and reports are symbolized.
ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=1:symbolize=1:allocator_may_return_null=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}


def symbolizer():
    for p in ("/usr/lib/llvm-16/bin/llvm-symbolizer", shutil.which("llvm-symbolizer") or ""):
        if p and os.path.exists(p):
            return p
    return None


def replay(binary, target, env, log):
    """Runs every regression input once; returns (count, failures)."""
    inputs = sorted(glob.glob(os.path.join(ROOT, "tests", "fuzz", "regressions", target, "*")))
    inputs = [p for p in inputs if os.path.isfile(p) and not p.endswith(".md")]
    failures = []
    for path in inputs:
        r = subprocess.run([binary, f"-timeout={TIMEOUT}", f"-rss_limit_mb={RSS_MB}", path],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            failures.append(path)
            log.write(r.stdout.decode("utf-8", "replace"))
    return len(inputs), failures


def fuzz(binary, target, seconds, check, work, artifacts, env, log):
    """Fuzzes one target; returns (executions, exec/s, findings as kind -> count)."""
    corpus = os.path.join(work, "corpus", target)
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(artifacts, exist_ok=True)
    seeds = os.path.join(ROOT, "tests", "fuzz", "corpus", target)
    cmd = [binary, f"-max_total_time={seconds}", f"-timeout={TIMEOUT}", f"-rss_limit_mb={RSS_MB}",
           f"-artifact_prefix={artifacts}/", "-print_final_stats=1"]
    d = os.path.join(ROOT, "tests", "fuzz", "dict", f"{target}.dict")
    if os.path.exists(d):
        cmd.append(f"-dict={d}")
    if not check:
        cmd += ["-fork=1", "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1"]
    cmd += [corpus, seeds]
    before = set(os.listdir(artifacts))
    start = time.monotonic()
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    elapsed = max(time.monotonic() - start, 1e-3)
    out = r.stdout.decode("utf-8", "replace")
    log.write(out)
    execs = 0
    m = re.findall(r"stat::number_of_executed_units:\s*(\d+)", out)
    if m:
        execs = int(m[-1])
    else:  # fork mode: "#N: cov: ... exec/s: ..." progress lines
        m = re.findall(r"^#(\d+):? ", out, re.M)
        if m:
            execs = int(m[-1])
    found = {}
    for name in sorted(set(os.listdir(artifacts)) - before):
        kind = name.split("-", 1)[0]
        found[kind] = found.get(kind, 0) + 1
    if check and r.returncode != 0 and not found:
        found["failure"] = 1  # e.g. a crash in LLVMFuzzerInitialize
    return execs, execs / elapsed, found


def found_files(artifacts, found):
    """The reproducers of this run's findings (their names start with the kinds counted)."""
    return sorted(os.path.join(artifacts, n) for n in os.listdir(artifacts)
                  if n.split("-", 1)[0] in found)


def report(log_path, artifacts, files):
    """Prints what a finding was, so that a CI log alone is enough to reproduce and fix it
    (the build folder of a CI machine is gone when its output is read): the sanitizer's or
    the harness's report from the log, and each reproducer (up to 4 KiB) as base64 with
    its SHA-1 name, to be decoded into tests/fuzz/regressions/<target>/."""
    with open(log_path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    start = next((i for i, ln in enumerate(lines)
                  if "==ERROR" in ln or "fuzz: broken promise" in ln or "deadly signal" in ln
                  or "runtime error:" in ln or "ERROR: libFuzzer" in ln), None)
    if start is None:
        start = max(0, len(lines) - 40)
    print("\n".join("  | " + ln for ln in lines[start:start + 60]))
    for path in files:
        data = open(path, "rb").read()
        if len(data) <= 4096:
            print(f"  reproducer {os.path.basename(path)} ({len(data)} bytes, base64):")
            print("  " + base64.b64encode(data).decode("ascii"))
        else:
            print(f"  reproducer {os.path.basename(path)}: {len(data)} bytes (too long to print)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("targets", nargs="*", help=f"targets to run (default: all of {', '.join(TARGETS)})")
    ap.add_argument("--build", default=os.path.join(ROOT, "build-fuzz"))
    ap.add_argument("--seconds", type=int, default=int(os.environ.get("FUZZ_SECONDS", "60")))
    ap.add_argument("--check", action="store_true", help="stop at the first finding (make test)")
    ap.add_argument("--keep", help="keep the grown corpora in this folder")
    ap.add_argument("--artifacts", help="where reproducers go (default BUILD/artifacts)")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    targets = args.targets or TARGETS
    for t in targets:
        if t not in TARGETS:
            sys.exit(f"fuzz: unknown target {t} (targets: {', '.join(TARGETS)})")
    env = dict(os.environ)
    env.update(ENV)
    sym = symbolizer()
    if sym:
        env["ASAN_SYMBOLIZER_PATH"] = sym
    supp = os.path.join(ROOT, "tests", "fuzz", "lsan.supp")
    if os.path.exists(supp):
        env["LSAN_OPTIONS"] = f"suppressions={supp}:print_suppressions=0"
    artifacts_root = args.artifacts or os.path.join(args.build, "artifacts")
    work = args.keep or tempfile.mkdtemp(prefix="weir-fuzz-")
    rows = []
    bad = False
    try:
        for t in targets:
            binary = os.path.join(args.build, f"fuzz_{t}")
            if not os.path.exists(binary):
                sys.exit(f"fuzz: {binary} is missing (build with -DWEIR_FUZZ=ON: make fuzz)")
            artifacts = os.path.join(artifacts_root, t)
            log_path = os.path.join(artifacts_root, f"{t}.log")
            os.makedirs(artifacts, exist_ok=True)
            with open(log_path, "w") as log:
                n_reg, reg_fail = replay(binary, t, env, log)
                execs, rate, found = fuzz(binary, t, args.seconds, args.check, work, artifacts, env, log)
            if reg_fail or found:
                bad = True
            rows.append((t, n_reg, len(reg_fail), execs, rate, found, artifacts, log_path, reg_fail))
            print(f"fuzz: {t}: {execs} executions, {sum(found.values())} findings, "
                  f"{n_reg - len(reg_fail)}/{n_reg} regressions pass", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    print()
    print(f"{'target':<16} {'seconds':>7} {'executions':>12} {'exec/s':>9} {'regressions':>11}  findings")
    for t, n_reg, n_fail, execs, rate, found, _, _, _ in rows:
        f = ", ".join(f"{n} {k}" for k, n in sorted(found.items())) or "none"
        print(f"{t:<16} {args.seconds:>7} {execs:>12} {rate:>9.0f} {n_reg - n_fail:>5}/{n_reg:<5}  {f}")
    for t, _, _, _, _, found, artifacts, log_path, reg_fail in rows:
        for p in reg_fail:
            print(f"fuzz: {t}: regression input fails again: {p} (log: {log_path})")
        if found:
            print(f"fuzz: {t}: reproducers in {artifacts}/ (log: {log_path}); replay one with "
                  f"{os.path.join(args.build, 'fuzz_' + t)} FILE")
            report(log_path, artifacts, found_files(artifacts, found))
    if bad:
        print("fuzz: FAILED: findings above (docs/fuzzing.md says how to turn one into a regression)")
        return 1
    print(f"fuzz: {len(rows)} targets, no findings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
