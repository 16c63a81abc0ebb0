"""One contract, run over every registered claim (in the style of SciPy's distribution tests).

What every claim must satisfy for the engine and the docs to work on it lives here, once;
the per-claim test modules test only what is particular to their claim (its mathematics).
A claim added to the package is picked up by discovery and checked here without any edit.
"""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings

from attnbounds import claims
from attnbounds.claims.base import Claim, Estimate, Proof
from attnbounds.engine.methods import _as_float_arrays, _slice_instance
from attnbounds.theory import derivation

QIDS = claims.qualified_ids()
READINGS = [(qid, r.name) for qid in QIDS for r in claims.get(qid).readings]
SWEEPS = [(qid, name) for qid, name in READINGS if claims.get(qid).reading(name).sweep is not None]
STRATEGIES = [(qid, name) for qid, name in READINGS if claims.get(qid).reading(name).strategy is not None]


def test_the_registry_holds_the_papers_claims_in_order():
    assert claims.load_errors() == {}
    assert QIDS[:7] == tuple(f"{claims.PAPER}:{c}" for c in ("L1", "C1", "T1i", "T1ii", "C2", "T2", "L2"))
    assert len(set(QIDS)) == len(QIDS)


@pytest.mark.parametrize("qid", QIDS)
def test_registered_under_its_paper_and_found_by_every_id(qid):
    claim = claims.get(qid)
    assert isinstance(claim, Claim)
    assert qid == f"{claims.registry.REGISTRY.paper_of(qid)}:{claim.id}"
    assert claims.get(claim.id) is claim  # short ids are unique among the package's claims
    module = importlib.import_module(claims.module_of(qid))
    assert claim in claims.claims_from(module)


@pytest.mark.parametrize("qid", QIDS)
def test_description_is_json_and_complete(qid):
    claim = claims.get(qid)
    d = json.loads(json.dumps(claim.to_dict(), allow_nan=False))
    assert d["id"] == claim.id and [r["id"] for r in d["readings"]] == list(claim.reading_ids)
    for field in ("title", "source", "statement", "transcription", "transcription_latex", "proof"):
        assert isinstance(getattr(claim, field), str) and getattr(claim, field).strip(), field
    assert "$" in claim.proof  # the proof page renders math
    assert set(claim.derivations) <= set(derivation.names())
    names = [h.name for h in claim.hypotheses]
    assert len(set(names)) == len(names)
    for r in claim.readings:
        assert r.methods, f"{qid}:{r.name} has no method"
        assert r.statement.strip() and r.latex.strip()


@pytest.mark.parametrize("qid", [q for q in QIDS if claims.get(q).symbolic_form is not None])
def test_symbolic_form_is_sympy(qid):
    form = claims.get(qid).symbolic_form()
    assert form and all(isinstance(k, str) for k in form)
    for key, value in form.items():
        assert isinstance(value, (sp.Basic, sp.MatrixBase, tuple, list, dict)), key


@pytest.mark.parametrize("qid,name", SWEEPS)
def test_sides_on_a_batch_equal_sides_on_its_instances(qid, name):
    """The engine evaluates sweeps in batches and re-evaluates the chosen violating instance alone."""
    r = claims.get(qid).reading(name)
    rng = np.random.default_rng(0)
    for _ in range(3):
        batch = r.sweep(rng, 16)
        assert isinstance(batch, dict)
        lhs, rhs = _as_float_arrays(r.sides(batch))
        size = lhs.shape[0] if lhs.ndim else 1
        assert not np.any(np.isnan(lhs)) and not np.any(np.isnan(rhs))
        for i in sorted({0, size // 2, size - 1}):
            one_l, one_r = _as_float_arrays(r.sides(_slice_instance(batch, i)))
            want_l = lhs[i] if lhs.ndim else lhs
            want_r = rhs[i] if rhs.ndim else rhs
            np.testing.assert_allclose(np.broadcast_to(one_l, np.shape(want_l)), want_l, rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(np.broadcast_to(one_r, np.shape(want_r)), want_r, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("qid,name", STRATEGIES)
def test_strategy_examples_evaluate_to_finite_sides(qid, name):
    r = claims.get(qid).reading(name)

    @settings(max_examples=10, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(r.strategy())
    def body(instance):
        lhs, rhs = _as_float_arrays(r.sides(instance))
        assert not np.any(np.isnan(lhs)) and not np.any(np.isnan(rhs))

    body()


@pytest.mark.parametrize("qid,name", [(q, n) for q, n in READINGS if claims.get(q).reading(n).montecarlo is not None])
def test_montecarlo_returns_an_estimate_with_ordered_intervals(qid, name):
    est = claims.get(qid).reading(name).montecarlo(np.random.default_rng(0), 200)
    assert isinstance(est, Estimate)
    assert est.lhs_ci[0] <= est.lhs_ci[1] and est.rhs_ci[0] <= est.rhs_ci[1]
    assert 0 < est.confidence < 1 and est.samples >= 1


@pytest.mark.parametrize(
    "qid,hyp", [(q, h.name) for q in QIDS for h in claims.get(q).hypotheses if h.drop is not None]
)
def test_hypothesis_drops_refute_the_conclusion(qid, hyp):
    h = next(h for h in claims.get(qid).hypotheses if h.name == hyp)
    proof = h.drop()
    assert isinstance(proof, Proof) and proof.status is False and proof.counterexample is not None


def test_a_reading_names_a_method_that_is_not_callable():
    """A new user passed a Hypothesis strategy object as ``strategy`` (the reading wants a function
    returning one): it failed only when checked, with "'LazyStrategy' object is not callable" and a
    HypothesisWarning from the reading's own test of ``strategy or sweep``."""
    import warnings

    from hypothesis import strategies as st

    from attnbounds.claims.base import Reading

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError, match=r"reading 'r': strategy: expected a callable .* got LazyStrategy \(pass a function"):
            Reading("r", "s", "l", strategy=st.integers(), sides=lambda inst: None)
        with pytest.raises(TypeError, match=r"reading 'r': sweep: expected a callable"):
            Reading("r", "s", "l", sweep=3, sides=lambda inst: None)
