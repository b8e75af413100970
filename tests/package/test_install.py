"""The C package: cmake --install to a temporary prefix, then a program written against
only weir.h, built outside the tree with pkg-config, creates a lake, commits and reads the
log (issue 15, acceptance)."""
from __future__ import annotations

import json
import shutil
import subprocess

from conftest import BUILD, ROOT, clean_env

PROGRAM = r"""
#include <stdio.h>
#include <string.h>
#include <weir.h>

static int fail(const char *what, weir_error *err) {
  fprintf(stderr, "%s: %s\n", what, err->message ? err->message : weir_error_name(err->code));
  weir_error_clear(err);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  if (strcmp(weir_version(), WEIR_VERSION_STRING) != 0) return 3;
  weir_error err = WEIR_ERROR_INIT;
  weir_lake_options lo;
  weir_lake_options_init(&lo, WEIR_LAKE_OPTIONS_VERSION);
  lo.author = "packaged";
  weir_lake *lake = NULL;
  if (weir_lake_init(argv[1], &lo, &lake, &err)) return fail("init", &err);
  weir_import_options io = WEIR_IMPORT_OPTIONS_INIT;
  io.table = "numbers";
  io.message = "numbers from a program built outside the tree";
  char *out = NULL;
  if (weir_table_import(lake, argv[2], &io, &out, &err)) return fail("import", &err);
  weir_free(out);
  if (weir_commit_log(lake, "main", 0, &out, &err)) return fail("log", &err);
  printf("%s\n", out);
  weir_free(out);
  weir_lake_free(lake);
  return 0;
}
"""


def test_a_c_program_builds_with_pkg_config_and_runs(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", str(BUILD), "--prefix", str(prefix)], check=True, capture_output=True)
    assert (prefix / "include" / "weir.h").is_file() and (prefix / "include" / "weir_version.h").is_file()
    assert not (prefix / "include" / "weir_worker.h").exists()  # private to weir's worker
    assert (prefix / "bin" / "weir").is_file()

    # Outside the tree: a folder of its own, only the installed prefix on the paths.
    work = tmp_path / "user"
    work.mkdir()
    (work / "prog.c").write_text(PROGRAM)
    (work / "numbers.csv").write_text("n,word\n1,one\n2,two\n3,three\n")
    env = clean_env(PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "weir"], env=env, capture_output=True, text=True,
                           check=True).stdout.split()
    assert subprocess.run(["pkg-config", "--modversion", "weir"], env=env, capture_output=True, text=True,
                          check=True).stdout.strip() == (ROOT / "VERSION").read_text().strip()
    libdir = subprocess.run(["pkg-config", "--variable=libdir", "weir"], env=env, capture_output=True, text=True,
                            check=True).stdout.strip()
    cc = shutil.which("cc") or "gcc"
    subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "prog.c", "-o", "prog", *flags,
                    f"-Wl,-rpath,{libdir}"], cwd=work, env=env, check=True)
    r = subprocess.run(["./prog", str(work / "lake"), str(work / "numbers.csv")], cwd=work, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    log = json.loads(r.stdout)
    assert [c["message"] for c in log["commits"]] == ["numbers from a program built outside the tree", "initial commit"]
    assert log["commits"][0]["author"] == "packaged"

    # The installed CLI reads what the program wrote (it finds libweir and DuckDB by its
    # runpath, with no LD_LIBRARY_PATH).
    r = subprocess.run([str(prefix / "bin" / "weir"), "--lake", str(work / "lake"), "query",
                        "SELECT sum(n) AS s FROM numbers", "--json"], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "6" in r.stdout
