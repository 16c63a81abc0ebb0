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
