"""The plug-in example docs/examples/my_normalizer.py loads and the claims are judged under it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from attnbounds import engine
from attnbounds.numerics import normalizers as nz

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "my_normalizer.py"


@pytest.fixture()
def example_module(monkeypatch):
    spec = importlib.util.spec_from_file_location("my_normalizer_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, "my_normalizer_example", module)
    return module


def test_sympy_form_loads_by_import_path(example_module):
    N = nz.load("my_normalizer_example:polynomial")
    z = np.array([[0.0, 1.0, -2.0]])
    F = (1 + z**2) ** 2 + np.exp(z)
    np.testing.assert_allclose(N.weights(z), F / F.sum(-1, keepdims=True), rtol=1e-12)
    fd = nz.finite_difference_jacobian(N.weights, z)
    np.testing.assert_allclose(N.jacobian(z), fd, atol=1e-7)
    assert N.sympy_F is not None and N.params == {"p": 2.0, "T": 1.0}


def test_callable_form_loads_and_validates(example_module):
    N = nz.load("my_normalizer_example:relu_squared_normalizer(eps=0.01)")
    w = N.weights(np.array([3.0, 2.5, -4.0]))
    assert w.sum() == pytest.approx(1.0) and np.all(w > 0)
    assert N.params["eps"] == 0.01
    # a bare function loads too (finite-difference Jacobian)
    assert nz.load("my_normalizer_example:relu_squared").jacobian([0.0, 0.5]).shape == (2, 2)


def test_dotted_import_path_from_the_repository_root(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE.parents[2]))
    N = nz.load("docs.examples.my_normalizer:polynomial")
    assert N.name == "polynomial"


def test_plugin_judges_the_claims_readings(example_module):
    rows = engine.check(["L1:reconstructed", "T1i:reconstructed", "C1:reconstructed"], quick=True,
                        normalizer=example_module.polynomial)
    by = {r.id: r for r in rows}
    assert all(r.normalizer == "polynomial" for r in rows)
    assert by["T1i:reconstructed"].verdict == "holds"
    # F = (1 + l²)² + e^l: its extremes on [-a, a] have no closed form, so Lemma 1's m and M
    # (and the reading) cannot be posed exactly. C1 draws its weights through the plug-in (its
    # e^l term overflows float64 at l/T > 709; the plug-in evaluates log F there in mpmath) and
    # names the hypothesis the plug-in does not meet
    assert by["L1:reconstructed"].verdict == "undecided" and "cannot be decided exactly" in by["L1:reconstructed"].detail["under"]
    c1 = by["C1:reconstructed"]
    assert c1.verdict == "holds" and c1.error is None and c1.hypotheses_broken == ["softmax"]


def test_the_ratio_form_readings_are_undecided_under_a_numpy_callable_as_the_tutorial_says(example_module):
    # docs/tutorials/test_your_variant.md names these five readings of Lemma 2
    named = ["L2:reconstructed", "L2:generic-paper", "L2:generic-sharpest", "L2:log-form", "L2:log-form-tighter"]
    rows = engine.check(["L2"], quick=True, normalizer=example_module.relu_squared_normalizer)
    undecided = sorted(r.id for r in rows if r.verdict == "undecided")
    assert undecided == sorted(named)
    assert all("has no ratio form" in r.detail["under"] for r in rows if r.id in named)
    text = (EXAMPLE.parents[1] / "tutorials" / "test_your_variant.md").read_text()
    assert all(f"`{n.split(':')[1]}`" in text for n in named)
