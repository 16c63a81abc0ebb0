"""An unknown hub id fails fast when offline, with how to get the weights (issue 13)."""

from __future__ import annotations

import pytest

from attnbounds.empirical import models

pytestmark = pytest.mark.empirical


@pytest.fixture
def config_calls(monkeypatch):
    """Record every AutoConfig.from_pretrained call; none finds anything (an empty cache)."""
    import transformers

    calls = []

    def from_pretrained(source, **kw):
        calls.append(kw.get("local_files_only"))
        raise OSError(f"{source} is not in the cache")

    monkeypatch.setattr(transformers.AutoConfig, "from_pretrained", from_pretrained)
    return calls


def test_no_network_fails_fast_without_asking_the_hub(monkeypatch, config_calls):
    monkeypatch.setattr(models, "_hub_reachable", lambda timeout=3.0: False)
    with pytest.raises(FileNotFoundError) as info:
        models.load_model("someone/no-such-model", local_files_only=False)
    assert config_calls == [True]  # the cache was read; the hub (and its retries) never
    text = str(info.value)
    assert "no network" in text and "hf download someone/no-such-model" in text


def test_hf_hub_offline_reads_only_the_cache(monkeypatch, config_calls):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(models, "_hub_reachable", lambda timeout=3.0: pytest.fail("probed the network while offline"))
    with pytest.raises(FileNotFoundError, match="hf download someone/no-such-model"):
        models.load_model("someone/no-such-model")
    assert config_calls == [True]


def test_online_asks_the_hub_after_the_cache(monkeypatch, config_calls):
    monkeypatch.setattr(models, "_hub_reachable", lambda timeout=3.0: True)
    with pytest.raises(FileNotFoundError, match="not in the Hugging Face cache or hub"):
        models.load_model("someone/no-such-model", local_files_only=False)
    assert config_calls == [True, False]


# --- a local model directory: each failure named by its cause (a new user's trial) ----------


def _copy(src, dst, keep):
    import shutil

    dst.mkdir()
    for f in src.iterdir():
        if keep(f.name):
            shutil.copy(f, dst / f.name)
    return dst


@pytest.mark.parametrize("case, message", [
    ("no-tokenizer", "holds no usable tokenizer"),
    ("no-weights", "holds no weights"),
    ("bad-json", "its config.json cannot be read"),
    ("unknown-type", "its config.json cannot be read"),
    ("no-attention", "has no attention layers"),
])
def test_a_broken_local_model_is_named_by_its_cause(tiny_gpt2_dir, tmp_path, case, message):
    """They were all "not found … run `hf download <the directory>`", or "--text: text too short"
    (transformers builds an empty tokenizer from a directory without one)."""
    import json

    weights = {"model.safetensors", "pytorch_model.bin"}
    if case == "no-tokenizer":
        d = _copy(tiny_gpt2_dir, tmp_path / case, lambda f: f in weights | {"config.json", "generation_config.json"})
    elif case == "no-weights":
        d = _copy(tiny_gpt2_dir, tmp_path / case, lambda f: f not in weights)
    elif case == "bad-json":
        d = _copy(tiny_gpt2_dir, tmp_path / case, lambda f: True)
        (d / "config.json").write_text("{not json")
    elif case == "unknown-type":
        d = _copy(tiny_gpt2_dir, tmp_path / case, lambda f: True)
        (d / "config.json").write_text(json.dumps({**json.loads((tiny_gpt2_dir / "config.json").read_text()),
                                                   "model_type": "my_arch"}))
    else:
        from transformers import MambaConfig

        d = tmp_path / case
        MambaConfig(hidden_size=16, num_hidden_layers=1, vocab_size=100).save_pretrained(d)
    with pytest.raises(ValueError, match=message) as err:
        models.load_model(str(d))
    assert "hf download" not in str(err.value)


def _tiny_bert_mlm(directory, tokenizer_dir):
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    BertForMaskedLM(BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                               intermediate_size=64, max_position_embeddings=64)).save_pretrained(directory)
    tok.save_pretrained(directory)
    return directory


def test_a_task_heads_checkpoint_loads_without_transformers_load_report(tiny_gpt2_dir, tmp_path, capfd):
    """A trial's BertForMaskedLM printed transformers' 14-line LOAD REPORT (its MLM head UNEXPECTED,
    the pooler MISSING: neither is read by attention). Weights missing elsewhere are named."""
    d = _tiny_bert_mlm(tmp_path / "mlm", tiny_gpt2_dir)
    handle = models.load_model(str(d))
    err = capfd.readouterr().err
    assert handle.causal is False and handle.n_layers == 2
    assert "LOAD REPORT" not in err and "UNEXPECTED" not in err and "note:" not in err

    from safetensors.torch import load_file, save_file

    weights = load_file(d / "model.safetensors")
    dropped = sorted(k for k in weights if "layer.1.attention.self.query" in k)
    save_file({k: v for k, v in weights.items() if k not in dropped}, d / "model.safetensors", metadata={"format": "pt"})
    models.load_model(str(d))
    err = capfd.readouterr().err
    assert "LOAD REPORT" not in err
    assert "2 weight(s) missing from the checkpoint were initialized at random" in err
    assert all(k.removeprefix("bert.") in err for k in dropped)
