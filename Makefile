# The two commands in the README (`make demo`, `make test`) must work on a fresh Debian/Ubuntu
# machine: every target below installs what it needs first.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3
# sudo only when not root (CI and containers run as root and may not have sudo at all).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := mariadb-server mariadb-client libmariadb-dev pkg-config build-essential \
	python3-dev python3-venv sysbench mmdebstrap chromium clang-format
PYTEST_ARGS ?=
# The offline images for --server docker (see `loadgen image build`): MariaDB from the host's
# release, MariaDB from Debian trixie (11.8) and MySQL from Debian sid, the last two tagged
# <repository>:<major.minor> of what their release has; the tests find them by their labels, or
# use LOADGEN_TEST_MARIADB_TRIXIE_IMAGE and LOADGEN_TEST_MYSQL_IMAGE.
IMAGE ?= loadgen/mariadb:10.11
# The extension's C sources (setup.py compiles every .c under native/); the simulator's kernel is
# native/lrusim/, plain C that tests/c/check_kernel.c drives without Python.
C_SOURCES := $(wildcard native/*.c native/*.h native/*/*.c native/*/*.h)
KERNEL_SOURCES := $(wildcard native/lrusim/*.c)

.PHONY: all deps venv build demo test clean image test-image sanitize bench check-c format-c check-format-c lint

all: venv

# Install only the Debian packages that are missing, so a re-run costs a few dpkg look-ups.
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(VENV)/.installed: pyproject.toml setup.py $(C_SOURCES) | deps
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip 'setuptools>=77'  # make sanitize runs setup.py with the venv's own setuptools
	$(PY) -m pip install -q -e '.[test]'
	@touch $@

venv: deps $(VENV)/.installed

build: venv
	$(PY) -m pip install -q -e '.[test]'

# The main job: a scaled copy of the seed experiment on the embedded default (a local mariadbd),
# interleaved (A) and looped (B) on one dataset, side by side; results under reports/, and
# reports/demo.md: what A and B do, why B reads about twice the pages, the table, each run.
demo: venv
	$(VENV)/bin/loadgen compare --server local --pool 8M --rows 2M --out-dir reports --report reports/demo.md

# Builds the three images from Debian packages (mmdebstrap; no registry needed), or reuses the
# ones already there.
image: venv
	$(VENV)/bin/loadgen image build --tag $(IMAGE)
	$(VENV)/bin/loadgen image build --flavor mariadb --release trixie
	$(VENV)/bin/loadgen image build --flavor mysql

# The docker tests run against the three images: build them once when an engine answers, and
# always when CI requires Docker (then a missing engine fails here, loudly).
test-image: venv
	@if [ "$${LOADGEN_REQUIRE_DOCKER:-}" = 1 ] || \
	  $(PY) -c 'import docker; docker.from_env(timeout=5).ping()' >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory image; \
	fi

test: venv test-image
	LOADGEN_TEST_IMAGE=$(IMAGE) $(PY) -m pytest $(PYTEST_ARGS)

# tests/native against an ASan/UBSan build of loadgen._native, kept apart in build/sanitize
# (loadgen/native.py loads the file named by LOADGEN_NATIVE_SO). libasan has to be the first
# library in the process, hence LD_PRELOAD; --confcutdir keeps the suite-wide conftest (and the
# helper programs it runs) out of this run.
SAN_DIR := build/sanitize
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1

sanitize: venv
	rm -rf $(SAN_DIR)
	$(MAKE) --no-print-directory check-c CHECK_DIR=$(SAN_DIR)/check-c CHECK_CFLAGS="$(SAN_FLAGS)"
	CFLAGS="$(SAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" \
	  $(PY) setup.py -q build_ext --build-lib $(SAN_DIR) --build-temp $(SAN_DIR)/obj
	LOADGEN_NATIVE_SO="$$(ls $(CURDIR)/$(SAN_DIR)/loadgen/_native*.so)" \
	LD_PRELOAD="$$(gcc -print-file-name=libasan.so)" \
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(PY) -m pytest tests/native --confcutdir=tests/native -p no:cacheprovider $(PYTEST_ARGS)

# The simulator's kernel checked from C, without Python (tests/c/check_kernel.c: its exact counts
# against the figures it gave before it was split into native/lrusim/); tests/native runs it too.
# Needs only gcc. CHECK_DIR and CHECK_CFLAGS let `make sanitize` build it with ASan/UBSan.
CHECK_DIR ?= build/check-c
CHECK_CFLAGS ?= -O2
$(CHECK_DIR)/check_kernel: tests/c/check_kernel.c $(KERNEL_SOURCES) $(wildcard native/lrusim/*.h)
	@mkdir -p $(CHECK_DIR)
	$(CC) $(CHECK_CFLAGS) -std=gnu11 -Wall -Wextra -Werror -Inative -o $@ tests/c/check_kernel.c $(KERNEL_SOURCES) -lm  # libm: cleaner.c's fmod

check-c: $(CHECK_DIR)/check_kernel
	$(CHECK_DIR)/check_kernel

# C formatting (native/.clang-format; clang-format is in APT_PACKAGES): format-c rewrites the
# files, check-format-c fails on any file that is not formatted and changes nothing.
FORMATTED_C := $(C_SOURCES) tests/c/check_kernel.c
CLANG_FORMAT := clang-format --style=file:native/.clang-format

format-c: deps
	$(CLANG_FORMAT) -i $(FORMATTED_C)

check-format-c: deps
	$(CLANG_FORMAT) --dry-run -Werror $(FORMATTED_C)

# The hygiene gate (.ci/run runs it before the tests): ruff over the Python ([tool.ruff] in
# pyproject.toml), every noqa naming why after its codes ("# noqa: BLE001 - the server may be gone"),
# and the C formatting.
LINTED := loadgen tests bench
NOQA_WITHOUT_WHY := '\#\s*noqa(:\s*[A-Z]+[0-9]+(\s*,\s*[A-Z]+[0-9]+)*)?\s*$$'

lint: venv check-format-c
	$(VENV)/bin/ruff check $(LINTED)
	@if grep -rnE --include='*.py' $(NOQA_WITHOUT_WHY) $(LINTED); then \
	  echo "lint: each noqa above says no reason: add ' - why' after its codes"; exit 1; fi

# Issue #6's speed targets, one script each (bench/README.md): each starts its own scratch server,
# runs paired, alternating comparisons and prints the median ratio last. About 20 minutes, most of
# it the 20M-query memory run; BENCH_ARGS is passed to every script (e.g. BENCH_ARGS=--rounds=3).
BENCH_SCRIPTS := driver_vs_sysbench sampler_overhead seed_vs_load_data memory_flat pipeline_reads mix_vs_sysbench
BENCH_ARGS ?=

bench: venv
	@set -e; for b in $(BENCH_SCRIPTS); do \
	  echo "== bench/$$b.py"; (cd bench && ../$(PY) $$b.py $(BENCH_ARGS)); \
	done

clean:
	rm -rf build dist *.egg-info loadgen/*.so
