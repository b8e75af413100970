# weir: the two commands of the README, and their parts.
#
#   make demo   set up a fresh machine, build, and run the Titanic pipeline end to end
#   make test   set up, build, and run every test (also under ASan/UBSan)
#   make soak   long budgets of the randomized tests (kill harness, conformance), not in make test
#
# Both run scripts/bootstrap.sh first, which installs what is missing and is quick when
# nothing is.

BUILD      ?= build
ASAN_BUILD ?= build-asan
PY         := $(CURDIR)/.venv/bin/python
JOBS       ?= $(shell nproc)
export WEIR_PYTHON ?= $(PY)

.PHONY: all bootstrap build build-asan demo test test-c test-py test-asan soak soak-kill soak-conformance bench \
        bench-full clean

all: build

bootstrap:
	scripts/bootstrap.sh

build: bootstrap
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

build-asan: bootstrap
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWEIR_SANITIZE=ON -DWEIR_FAILPOINTS=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)

demo: build
	examples/titanic/demo.sh

test: build build-asan
	$(MAKE) --no-print-directory test-c test-py test-asan

test-c:
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-py:
	WEIR_BUILD_DIR=$(CURDIR)/$(BUILD) $(PY) -m pytest tests/py -q

# Under the sanitizers: every C test, and the CLI tests (they drive the weir binary, which
# is instrumented; Python itself is not, so SDK tests that load libweir.so into the
# interpreter run in test-py only, and Python model workers use the plain build's library).
test-asan:
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  WEIR_BUILD_DIR=$(CURDIR)/$(ASAN_BUILD) WEIR_LIBRARY=$(CURDIR)/$(BUILD)/libweir.so WEIR_REQUIRE_FAILPOINTS=1 \
	  $(PY) -m pytest tests/py -q -m cli

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

bench: build
	$(PY) bench/run.py --tier quick

bench-full: build
	$(PY) bench/run.py --tier full

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
