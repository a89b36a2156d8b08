# Survey Explorer: `make run` serves the app on http://127.0.0.1:8000/, `make test` runs the tests.
# Both set everything up on a fresh machine (virtualenv, packages, database, survey data).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CREATED := $(VENV)/.created
STAMP := $(VENV)/.installed-runtime
DEV_STAMP := $(VENV)/.installed-dev
HOST ?= 127.0.0.1
PORT ?= 8000
WORKERS ?= 1
# Test processes (pytest-xdist): one per core by default; PYTEST_WORKERS=0 runs in this process.
PYTEST_WORKERS ?= auto

.PHONY: run test setup setup-dev check-python lint bench clean-db

check-python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' || { \
	  echo "Survey Explorer needs Python 3.12 or newer (Django 6.1); '$(PYTHON)' is $$($(PYTHON) --version 2>&1)."; \
	  echo "With pyenv, the .python-version file selects 3.12; or run: make PYTHON=python3.12 ..."; \
	  exit 1; }

# A stamp, not bin/python: a venv cut off halfway (python but no pip) is made again.
$(CREATED): | check-python
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	@touch $(CREATED)

$(STAMP): requirements.txt | $(CREATED)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $(STAMP)

$(DEV_STAMP): requirements.txt requirements-dev.txt | $(CREATED)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $(DEV_STAMP)

setup: check-python $(STAMP)

setup-dev: check-python $(DEV_STAMP)

run: setup
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_survey
	$(PY) manage.py serve $(HOST):$(PORT) --workers $(WORKERS)

test: setup-dev
	$(PY) -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

lint: setup-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

# The browse benchmark (bench/README.md): ours vs Datasette at 270 and 100,000 works, ~15 minutes.
bench: setup
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-bench.txt
	$(PY) -m bench.browse_bench $(BENCH_ARGS)

clean-db:
	rm -f db.sqlite3
