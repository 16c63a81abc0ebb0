"""``reproduce --normalizers``: the what-if metrics (E3, E4, gradient cost) per normalizer."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from attnbounds.empirical import run

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "war_and_peace.txt"
TINY = dict(n_layer=2, n_head=4, n_embd=64)  # gpt2-random override: same code path, fast

pytestmark = pytest.mark.empirical

_KEYS = {"separability.csv": ("layer", "head", "window", "L", "N", "multiplier"),
         "critical_n.csv": ("layer", "head", "window", "L"),
         "whatif_gradient.csv": ("layer", "head", "window", "L")}
_VALUE = {"separability.csv": "ns_over_n", "critical_n.csv": "n_crit_over_L", "whatif_gradient.csv": "jacobian_spectral_norm"}


def _rows(path, normalizer):
    with open(path) as fh:
        return [r for r in csv.DictReader(fh) if r["normalizer"] == normalizer]


@pytest.fixture(scope="module")
def whatif_run(tmp_path_factory):
    from attnbounds.empirical.models import load_model

    assert CORPUS.is_file(), f"shared corpus missing: {CORPUS}"  # FAIL, not skip
    handle = load_model("gpt2-random", seed=0, **TINY)
    cfg = run.ReproduceConfig(model="gpt2-random", text=str(CORPUS), lengths=(16, 32, 64), top_n=(1, 5, 20), windows=1,
                              quick=True, settings=run.QUICK_SETTINGS, model_overrides=TINY,
                              normalizers=("softmax", "sparsemax"), protocol="last-query")
    out = tmp_path_factory.mktemp("whatif")
    return out, run.run_reproduce(cfg, out, progress=False, handle=handle)


@pytest.mark.parametrize("name", sorted(_KEYS))
def test_softmax_whatif_equals_captured(whatif_run, name):
    out, _ = whatif_run
    cap = {tuple(r[k] for k in _KEYS[name]): float(r[_VALUE[name]]) for r in _rows(out / name, "captured")}
    soft = {tuple(r[k] for k in _KEYS[name]): float(r[_VALUE[name]]) for r in _rows(out / name, "softmax")}
    assert cap and cap.keys() == soft.keys()
    a = np.array([cap[k] for k in cap])
    b = np.array([soft[k] for k in cap])
    assert np.allclose(a, b, rtol=0, atol=1e-6, equal_nan=True)  # the model's own normalizer is softmax


def test_sparsemax_rows_in_range(whatif_run):
    out, res = whatif_run
    sep = _rows(out / "separability.csv", "sparsemax")
    crit = _rows(out / "critical_n.csv", "sparsemax")
    grad = _rows(out / "whatif_gradient.csv", "sparsemax")
    assert len(sep) == len(_rows(out / "separability.csv", "captured"))
    assert len(crit) == 2 * 4 * 3 and len(grad) == 2 * 4
    assert all(0.0 <= float(r["ns_over_n"]) <= 1.0 for r in sep)
    assert all(r["n_crit"] == "nan" or 1 <= float(r["n_crit"]) < int(r["L"]) for r in crit)
    # sparsemax's Jacobian is the projection diag(s) − s sᵀ/|S| on the support: norm 1 (|S| ≥ 2) or 0
    g = np.array([float(r["jacobian_spectral_norm"]) for r in grad])
    assert np.all((np.abs(g - 1) < 1e-9) | (np.abs(g) < 1e-12))
    assert all(r["L"] == "64" for r in grad)  # the largest L ≤ 256
    # softmax's ‖diag(α) − ααᵀ‖₂ never exceeds 1/2
    assert all(float(r["jacobian_spectral_norm"]) <= 0.5 + 1e-9 for r in _rows(out / "whatif_gradient.csv", "captured"))
    wi = res["experiments"]["normalizers"]
    assert set(wi) == {"captured", "softmax", "sparsemax"}
    for e in wi.values():
        assert {"d_tilde_by_N", "separability", "n_crit_over_L", "gradient"} <= set(e)
    assert wi["softmax"]["gradient"]["ratio_to_softmax"] == pytest.approx(1.0, abs=1e-6)
    assert json.loads((out / "results.json").read_text())["experiments"]["normalizers"] == json.loads(json.dumps(wi))


def test_report_has_whatif_section(whatif_run):
    out, res = whatif_run
    md = (out / "report.md").read_text()
    assert "## What-if normalizers" in md and "trained with softmax" in md
    assert "| sparsemax |" in md and "Separability above the softmax ceiling" in md
    # the captured headline numbers ignore the what-if rows
    assert res["headline"]["separability"]["value"] == pytest.approx(res["experiments"]["normalizers"]["captured"]["separability"]["mean"])


def test_gradient_length_is_capped():
    assert run.whatif_gradient_length((32, 64, 128, 256, 512)) == 256
    assert run.whatif_gradient_length((300, 600)) == 300
    with pytest.raises(ValueError, match="lengths"):
        run.whatif_gradient_length(())
