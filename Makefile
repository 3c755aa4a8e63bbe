# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip

.PHONY: run test lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# Reinstall only when pyproject.toml changes (the stamp is older than it).
$(VENV)/.installed-run: pyproject.toml | $(PY)
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PIP) install --quiet -e ".[test]"
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(PY) -m attnviz

test: $(VENV)/.installed-test
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q
	$(VENV)/bin/ruff check attnviz tests

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check attnviz tests

bench: $(VENV)/.installed-run
	$(PY) -m attnviz bench

clean:
	rm -rf $(VENV) build dist *.egg-info
