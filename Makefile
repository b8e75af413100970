# weir: the two commands of the README, and their parts.
#
#   make demo   set up a fresh machine, build, and run the Titanic pipeline end to end
#   make test   set up, build, and run every test (also under ASan/UBSan, the C tests under
#               TSan, the in-process SDK tests against the ASan library, and a short
#               run of every fuzz target)
#   make fuzz   build the libFuzzer targets and fuzz each for FUZZ_SECONDS (default 60)
#   make soak   long budgets of the randomized tests (kill harness, conformance), not in make test
#
# Both run scripts/bootstrap.sh first, which installs what is missing and is quick when
# nothing is.

BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
# The clang that Debian's libclang-rt-16-dev (libFuzzer's runtime) belongs to.
FUZZ_CC    ?= clang-16
# Seconds per target: make fuzz, and the short run of make test (9 targets).
FUZZ_SECONDS ?= 60
FUZZ_TEST_SECONDS ?= 5
PY         := $(CURDIR)/.venv/bin/python
JOBS       ?= $(shell nproc)
export WEIR_PYTHON ?= $(PY)

.PHONY: all bootstrap build build-asan build-tsan build-fuzz demo test test-c test-py test-py-pg test-asan \
        test-asan-sdk test-tsan test-fuzz test-model test-abi test-package abi-update fuzz soak soak-kill \
        soak-conformance bench bench-full clean

all: build

bootstrap:
	scripts/bootstrap.sh

build: bootstrap
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

build-asan: bootstrap
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWEIR_SANITIZE=ON -DWEIR_FAILPOINTS=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# ThreadSanitizer (gcc): the C tests, among them two lake handles running projects in
# parallel threads (tests/c/api/test_parallel.c).
build-tsan: bootstrap
	cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEIR_TSAN=ON >/dev/null
	cmake --build $(TSAN_BUILD) -j $(JOBS)

# libFuzzer targets (docs/fuzzing.md): clang, every module instrumented, ASan + UBSan.
build-fuzz: bootstrap
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_C_COMPILER=$(FUZZ_CC) -DCMAKE_BUILD_TYPE=Debug -DWEIR_FUZZ=ON >/dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS)

demo: build
	examples/titanic/demo.sh

test: build build-asan build-tsan build-fuzz
	$(MAKE) --no-print-directory test-model test-abi test-c test-py test-py-pg test-asan test-asan-sdk test-tsan \
	  test-fuzz test-package

# libweir's ABI against the committed baseline (scripts/abi.sh; libabigail's abidiff). A
# deliberate change of the public API updates the baseline: make abi-update, and commit it.
test-abi:
	scripts/abi.sh check $(BUILD)

abi-update: build
	scripts/abi.sh update $(BUILD)

# The package as users get it: cmake --install to a temporary prefix and a C program
# built outside the tree with pkg-config; the wheel built with scikit-build-core,
# installed into a fresh virtual environment, running the README's Python snippet.
test-package:
	WEIR_BUILD_DIR=$(CURDIR)/$(BUILD) $(PY) -m pytest tests/package -q

test-c:
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The formal model of the versioning semantics (model/README.md): spin checks every
# property of the model, a counterexample for each broken variant, and the witnesses.
test-model:
	model/check.sh

test-py:
	WEIR_BUILD_DIR=$(CURDIR)/$(BUILD) $(PY) -m pytest tests/py -q

# The catalog's second backend: the CLI, SDK, versioning, concurrency, serializable and
# crash suites again with every lake's catalog on PostgreSQL (tests/py/conftest.py starts a
# server for the session and stops it). The C catalog tests run on both backends in
# test-c. The whole suite twice would double make test's time; these are the suites that
# exercise the catalog (the engine, contract, sandbox and SDK-typing suites do not touch it
# beyond opening a lake). test_pipeline passes on PostgreSQL too but takes as long as all of
# these together; the serializable suite covers runs' publishing rules, so it is left out
# of make test: make test-py-pg PG_TESTS="test_pipeline" runs it.
PG_TESTS ?= test_cli_basics test_cli_import test_cli_versioning test_client_api test_client_errors \
            test_client_flow test_concurrency test_serializable test_postgres_catalog \
            test_serve_rest test_serve_pyiceberg test_merge_gate test_status test_gc
test-py-pg:
	WEIR_TEST_CATALOG=postgresql WEIR_BUILD_DIR=$(CURDIR)/$(BUILD) $(PY) -m pytest $(PG_TESTS:%=tests/py/%.py) -q

# Under the sanitizers: every C test, and the CLI tests (they drive the weir binary, which
# is instrumented; Python itself is not, so SDK tests that load libweir.so into the
# interpreter run in test-py only, and Python model workers use the plain build's library).
test-asan:
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  WEIR_BUILD_DIR=$(CURDIR)/$(ASAN_BUILD) WEIR_LIBRARY=$(CURDIR)/$(BUILD)/libweir.so WEIR_REQUIRE_FAILPOINTS=1 \
	  $(PY) -m pytest tests/py -q -m cli

# The SDK tests that load libweir into the interpreter, against the ASan/UBSan library:
# Python is not instrumented, so the sanitizer runtimes are preloaded into it. Memory
# errors fail at once; leak reports go to files that scripts/lsan_check.py reads, failing
# on every leak whose allocation is libweir's (CPython's own objects alive at exit are
# told apart there; tests/py/lsan-python.supp drops the loader's). Files: those whose
# tests run no Python model (a model worker runs the plain library in its sandbox).
ASAN_SDK_TESTS ?= tests/py/test_client_api.py tests/py/test_client_errors.py tests/py/test_sdk_validate.py \
                  tests/py/test_sdk_schema.py tests/py/test_sdk_model.py tests/py/test_json_schema.py
ASAN_RUNTIMES = $(shell gcc -print-file-name=libasan.so) $(shell gcc -print-file-name=libubsan.so)
ASAN_SDK_LOGS = $(CURDIR)/$(ASAN_BUILD)/lsan-sdk
test-asan-sdk:
	rm -rf $(ASAN_SDK_LOGS) && mkdir -p $(ASAN_SDK_LOGS)
	LD_PRELOAD="$(ASAN_RUNTIMES)" \
	  ASAN_OPTIONS=detect_leaks=1:log_path=$(ASAN_SDK_LOGS)/report \
	  LSAN_OPTIONS=exitcode=0:suppressions=$(CURDIR)/tests/py/lsan-python.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  WEIR_BUILD_DIR=$(CURDIR)/$(ASAN_BUILD) WEIR_LIBRARY=$(CURDIR)/$(ASAN_BUILD)/libweir.so \
	  $(PY) -m pytest $(ASAN_SDK_TESTS) -q -p no:cacheprovider
	$(PY) scripts/lsan_check.py $(ASAN_SDK_LOGS)

# ThreadSanitizer over the C tests (suppressions: DuckDB is not instrumented).
test-tsan:
	TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  ctest --test-dir $(TSAN_BUILD) --output-on-failure -j $(JOBS)

# Regression inputs replayed, then every target fuzzed briefly: any finding fails.
test-fuzz:
	python3 scripts/fuzz.py --build $(FUZZ_BUILD) --seconds $(FUZZ_TEST_SECONDS) --check

fuzz: build-fuzz
	python3 scripts/fuzz.py --build $(FUZZ_BUILD) --seconds $(FUZZ_SECONDS)

# Long budgets, not part of make test, one target each (one alone: make soak SOAK_TARGETS=soak-kill);
# add yours to SOAK_TARGETS and .PHONY.
SOAK_TARGETS ?= soak-kill soak-conformance
soak: build build-asan
	$(MAKE) --no-print-directory $(SOAK_TARGETS)

# The randomized kill harness for 10,000 kills (tests/py/test_crash.py, on the failpoint build).
soak-kill:
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  WEIR_BUILD_DIR=$(CURDIR)/$(ASAN_BUILD) WEIR_LIBRARY=$(CURDIR)/$(BUILD)/libweir.so WEIR_REQUIRE_FAILPOINTS=1 \
	  WEIR_KILL_ITERATIONS=$${WEIR_KILL_ITERATIONS:-10000} \
	  $(PY) -m pytest tests/py/test_crash.py -q -k randomized

# 1,000 generated histories of the conformance test (tests/py/test_conformance.py).
soak-conformance:
	WEIR_BUILD_DIR=$(CURDIR)/$(BUILD) WEIR_CONFORMANCE_PROFILE=soak $(PY) -m pytest tests/py/test_conformance.py -q

# Every allocation of each operation of tests/c/lake/test_oom.c fails in turn (make test
# walks them with a stride; docs/memory.md).
.PHONY: oom
oom: build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  WEIR_OOM_STRIDE=1 ctest --test-dir $(ASAN_BUILD) --output-on-failure -R lake_test_oom

bench: build
	$(PY) bench/run.py --tier quick

bench-full: build
	$(PY) bench/run.py --tier full

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
