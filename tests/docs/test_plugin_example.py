"""The plug-in example docs/examples/my_normalizer.py loads and runs through the battery."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from attnbounds import battery
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


def test_plugin_runs_through_the_battery(example_module):
    rows = battery.run_battery(example_module.polynomial, ["L1", "L2:entry", "T1i:reconstructed"], quick=True)
    by = {r["id"]: r for r in rows}
    assert all(r["normalizer"] == "polynomial" for r in rows)
    assert by["T1i:reconstructed"]["verdict"] == "holds"
    # F = (1 + l²)² + e^l is positive and L-independent: Lemma 1's squeeze, with exact limits
    assert by["L1:squeeze"]["verdict"] == "holds" and "symbolic" in by["L1:squeeze"]["methods"]
    # its gradient is steeper than softmax's: the 1/(4T) entry bound fails, with a real instance
    row = by["L2:entry"]
    assert row["verdict"] == "falsified"
    c = row["counterexample"]
    J = example_module.polynomial.jacobian(np.array(c["instance"]["logits"]), T=c["instance"]["T"])
    assert np.abs(J).max() == pytest.approx(c["lhs"]) and c["lhs"] > 1 / (4 * c["instance"]["T"])
