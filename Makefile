# The course's two commands:  `make course`  and  `make test` (`make test-fast` while editing).
# They create the virtual environment in $(VENV) first if it is missing or out of date.

VENV ?= .venv
PY := $(VENV)/bin/python
PROFILE ?= tiny
BUILD ?= build/$(PROFILE)
# On a machine without a local CPU wheel, add: TORCH_INSTALL="torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
TORCH_INSTALL ?= torch==2.13.0

.PHONY: course test test-fast check-browser env lint students explorer clean mutation

env: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(TORCH_INSTALL)
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

course: env
	$(PY) -m course_lib notebooks --profile $(PROFILE) --out $(BUILD)

# The whole suite, as CI runs it (about 24 minutes on a 2-core CPU). Its browser test needs Chromium, so that is
# checked first: without it `make test` stops at once instead of failing after all that time.
test: check-browser env
	$(PY) -m ruff check course_lib tests benchmarks
	$(PY) -m pytest

# The edit-test loop: lint and every test not marked slow or slurm (no notebooks, no browser, no cluster).
test-fast: env
	$(PY) -m ruff check course_lib tests benchmarks
	$(PY) -m pytest -m "not slow and not slurm"

# Mutation testing of the core modules (not part of CI; about an hour on 2 idle cores): mutmut changes one thing at a
# time and runs the fast tests that reach it ([tool.mutmut] in pyproject.toml); the report goes to
# benchmarks/results/mutation.md. Resumable: stop it any time, and the next `make mutation` tests only what is left.
# MUTANTS='course_lib.answers.*' tests again every mutant of one module (e.g. after adding tests for it).
# The tests run from a copy in mutants/, so ../shared/data is reached through a link ./shared -> ../shared.
mutation: env
	test -e shared || ln -s ../shared shared
	@test -d shared/data || { echo "make mutation: the tests need the real data in ../shared/data (see README)" >&2; exit 1; }
	mkdir -p mutants && git rev-parse --short HEAD > mutants/run-commit && rm -f mutants/rerun-commit
	-env -u PYTHONPATH OMP_NUM_THREADS=1 nice -n 10 $(VENV)/bin/mutmut run --max-children 2 $(MUTANTS)
	$(PY) benchmarks/mutation.py

# Debian's /usr/bin/chromium, or Playwright's own build (tests/test_browser.py drives whichever is there).
PLAYWRIGHT_BROWSERS_PATH ?= $(HOME)/.cache/ms-playwright
check-browser:
	@if [ -x /usr/bin/chromium ] || ls -d "$(PLAYWRIGHT_BROWSERS_PATH)"/chromium* >/dev/null 2>&1; then :; else \
	  echo "make test: the browser test needs Chromium, and there is none. Either" >&2; \
	  echo "  sudo apt-get install chromium            (Debian's; .ci/run does this in CI)" >&2; \
	  echo "  or, where downloads are possible: make env && $(VENV)/bin/playwright install chromium" >&2; \
	  echo "(or run 'make test-fast', which needs no browser)" >&2; \
	  exit 1; fi

# Student copies: the notebooks without the cells tagged `solution`, outputs stripped.
students: env
	rm -rf build/students && mkdir -p build/students
	cp notebooks/*.ipynb build/students/
	$(VENV)/bin/nbstripout --drop-tagged-cells solution build/students/*.ipynb
	@echo "student notebooks (no solutions) are in build/students/"

# The budget explorer alone as an app (Voila, code hidden), for a class: open the printed URL.
explorer: env
	$(VENV)/bin/voila apps/budget_explorer.ipynb --no-browser

lint: env
	$(PY) -m ruff check course_lib tests benchmarks

clean:
	rm -rf build .pytest_cache
