# The course's two commands:  `make course`  and  `make test`.
# Both create the virtual environment in $(VENV) first if it is missing or out of date.

VENV ?= .venv
PY := $(VENV)/bin/python
PROFILE ?= tiny
BUILD ?= build/$(PROFILE)
# On a machine without a local CPU wheel, add: TORCH_INSTALL="torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
TORCH_INSTALL ?= torch==2.13.0

.PHONY: course test env lint students explorer clean

env: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(TORCH_INSTALL)
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

course: env
	$(PY) -m course_lib notebooks --profile $(PROFILE) --out $(BUILD)

test: env
	$(PY) -m ruff check course_lib tests benchmarks
	$(PY) -m pytest

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
