"""L1 claim object: readings on batches and single instances, drops, certificates."""

import math

import numpy as np
import pytest
from hypothesis import given, settings

from attnbounds.claims.base import holds_relation
from attnbounds.claims.lemma1 import (
    CLAIM,
    FAMILY_NAMES,
    HALF_WIDTHS,
    PARAM_CHOICES,
    certify_box,
    family_constants,
    family_normalizer,
)


def _direct(instance):
    # α from the raw F, m and M from a dense grid: independent of the claim's evaluators
    F = family_normalizer(instance["family"], instance["param"])
    z = np.asarray(instance["logits"], dtype=float)
    f = F.F(z)
    alpha = f / f.sum(axis=-1, keepdims=True)
    a = instance["a"]
    grid = F.F(np.linspace(-a, a, 200_001))
    return alpha, grid.min(), grid.max()


def test_registry_and_structure():
    assert [r.name for r in CLAIM.readings] == ["transcribed", "reconstructed"]
    assert "$" in CLAIM.proof and "Proof" in CLAIM.proof
    assert {h.name for h in CLAIM.hypotheses} == {"positive", "bounded-logits", "length-independent"}
    form = CLAIM.symbolic_form()
    assert {"alpha_lower", "alpha_upper", "tight_lower", "tight_upper", "C1", "C2"} <= set(form)


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_family_constants_match_a_grid(family):
    for a in HALF_WIDTHS:
        for param in PARAM_CHOICES.get(family, (1.0,))[:2]:
            m, M, lo_at, hi_at = family_constants(family, param, a)
            F = family_normalizer(family, param)
            grid = F.F(np.linspace(-a, a, 200_001))
            assert m == pytest.approx(grid.min(), rel=1e-9) and M == pytest.approx(grid.max(), rel=1e-9)
            assert F.F(np.array([lo_at]))[0] == pytest.approx(m, rel=1e-12)
            assert F.F(np.array([hi_at]))[0] == pytest.approx(M, rel=1e-12)


def test_invalid_arguments():
    with pytest.raises(ValueError, match="family"):
        family_constants("relu", 1.0, 1.0)
    with pytest.raises(ValueError, match="param"):
        family_constants("softmax", -1.0, 1.0)
    with pytest.raises(ValueError, match="a:"):
        family_constants("softmax", 1.0, 0.0)
    with pytest.raises(TypeError, match="rng"):
        CLAIM.reading("transcribed").sweep(0, 3)
    with pytest.raises(ValueError, match="n:"):
        CLAIM.reading("transcribed").sweep(np.random.default_rng(0), 0)



def test_bounds_recomputed_independently_and_tight_case_attained():
    r = CLAIM.reading("reconstructed")
    rng = np.random.default_rng(1)
    attained = 0
    for _ in range(15):
        batch = r.sweep(rng, 64)
        alpha, m, M = _direct(batch)
        L = alpha.shape[-1]
        assert np.all(alpha * L <= M / m * (1 + 1e-9)) and np.all(alpha * L >= m / M * (1 - 1e-9))
        hi, lo = M / (M + (L - 1) * m), m / (m + (L - 1) * M)
        assert np.all(alpha <= hi * (1 + 1e-9)) and np.all(alpha >= lo * (1 - 1e-9))
        attained += int(np.sum(np.isclose(alpha.max(axis=-1), hi, rtol=1e-9) | np.isclose(alpha.min(axis=-1), lo, rtol=1e-9)))
        s = r.sides(batch)
        assert np.all(s.lhs <= s.rhs * (1 + 1e-9) + 1e-12)
    assert attained > 0  # the sweep reaches the sharp bound


def test_known_extreme_instance_is_an_equality():
    inst = {"family": "taylor2", "param": 1.0, "a": 2.0, "logits": np.array([2.0, -1.0, -1.0, -1.0])}
    s = CLAIM.reading("reconstructed").sides(inst)
    assert float(s.lhs) == pytest.approx(float(s.rhs), rel=1e-12)
    alpha = _direct(inst)[0]
    assert alpha[0] == pytest.approx(5 / (5 + 3 * 0.5), rel=1e-12)
    t = CLAIM.reading("transcribed").sides(inst)
    assert float(t.rhs) == pytest.approx(math.log(10.0)) and float(t.lhs) < float(t.rhs)


@pytest.mark.parametrize("name", ["transcribed", "reconstructed"])
def test_hypothesis_strategy_finds_no_violation(name):
    r = CLAIM.reading(name)

    @settings(max_examples=40, deadline=None, database=None)
    @given(r.strategy())
    def check(instance):
        assert np.all(np.abs(instance["logits"]) <= instance["a"])
        assert bool(holds_relation(r.sides(instance), r.relation, r.rtol, r.atol))

    check()


def test_symbolic_and_certificate():
    assert CLAIM.reading("transcribed").symbolic().status is True
    assert CLAIM.reading("reconstructed").symbolic().status is True
    assert certify_box().status is True
    assert certify_box(1).status is None  # one box is too coarse: undecided, not a pass


def test_hypothesis_checks_on_batches():
    batch = CLAIM.reading("transcribed").sweep(np.random.default_rng(2), 10)
    for h in CLAIM.hypotheses:
        assert np.all(h.check(batch)) and np.shape(h.check(batch)) == (10,)
    out = dict(batch, logits=batch["logits"] + 2 * batch["a"])  # now outside [-a, a]
    assert not np.any(next(h for h in CLAIM.hypotheses if h.name == "bounded-logits").check(out))


def test_drop_bounded_logits_recomputed():
    proof = next(h for h in CLAIM.hypotheses if h.name == "bounded-logits").drop()
    assert proof.status is False
    z = proof.counterexample["logits"]
    L = z.size
    assert np.abs(z).max() > proof.counterexample["a"]  # only this hypothesis fails
    alpha1 = math.exp(z[0]) / np.exp(z).sum()
    assert L * alpha1 == pytest.approx(proof.lhs, rel=1e-12)
    assert proof.rhs == pytest.approx(math.exp(2.0)) and L * alpha1 > proof.rhs
    # the claim's own transcribed evaluator agrees that the conclusion fails there
    s = CLAIM.reading("transcribed").sides(proof.counterexample)
    assert not holds_relation(s, "<=")


def test_drop_length_independent_recomputed():
    proof = next(h for h in CLAIM.hypotheses if h.name == "length-independent").drop()
    assert proof.status is False
    z = proof.counterexample["logits"]
    L, s = z.size, proof.counterexample["s"]
    assert np.abs(z).max() <= proof.counterexample["a"]  # bounded, positive: only length-awareness fails
    w = np.exp(s * math.log(L) * z)
    assert L * w[0] / w.sum() == pytest.approx(proof.lhs, rel=1e-12)
    # its constant at L = 2 on [-1, 1]: M/m = 2^{2s}
    assert proof.rhs == pytest.approx(2 ** (2 * s)) and proof.lhs > 10 * proof.rhs


def test_drop_positive_recomputed():
    proof = next(h for h in CLAIM.hypotheses if h.name == "positive").drop()
    assert proof.status is False
    z = proof.counterexample["logits"]
    f = np.maximum(z, 0.0)
    assert f.min() == 0.0 and (f / f.sum()).min() == 0.0 and proof.lhs == 0.0


# ------------------------------------------------------------------ the checked proof


@pytest.mark.parametrize("reading", ["reconstructed", "transcribed"])
def test_symbolic_proof_is_a_fully_checked_chain(reading):
    proof = CLAIM.reading(reading).symbolic()
    assert proof.status is True and proof.steps > 0 and proof.checked == proof.steps
    assert {"hypothesis", "monotone"} <= set(proof.rules)


@pytest.mark.parametrize("reading", ["reconstructed", "transcribed"])
@pytest.mark.parametrize("dropped", ["positive", "bounded-logits"])
def test_proof_fails_without_each_hypothesis(reading, dropped):
    from attnbounds.claims.lemma1 import _context, check_proof

    assert not check_proof(reading, ctx=_context().without(dropped)).complete


def test_proof_does_not_reach_a_tighter_goal():
    import sympy as sp

    from attnbounds.claims.lemma1 import GOALS, check_proof

    (lhs, rel, rhs), lower = GOALS["reconstructed"]
    assert not check_proof("reconstructed", goals=((lhs, rel, rhs * (1 - sp.Rational(1, 1000))), lower)).complete
    assert not check_proof("reconstructed", goals=((lhs, ">=", rhs), lower)).complete


@pytest.mark.parametrize("name", ["positive", "bounded-logits", "length-independent"])
def test_each_drop_instance_breaks_its_hypothesis(name):
    # before: the ssmax and max(l, 0) instances had no "family" (check raised KeyError and the
    # engine skipped it) and the length-independence check returned True for everything
    h = next(h for h in CLAIM.hypotheses if h.name == name)
    cex = h.drop().counterexample
    assert not bool(np.all(h.check(cex)))


def test_length_independent_check_tells_fixed_from_length_aware():
    h = next(h for h in CLAIM.hypotheses if h.name == "length-independent")
    z = np.zeros((3, 4))
    assert np.all(h.check({"family": "softmax", "param": 1.0, "a": 1.0, "logits": z}))
    assert not np.any(h.check({"family": "ssmax", "param": 1.0, "a": 1.0, "logits": z}))


# ------------------------------------------------------------------ the reading's statement and its tie


@pytest.mark.parametrize("reading", ["reconstructed", "transcribed"])
def test_first_part_proves_the_readings_log_form(reading):
    import sympy as sp

    from attnbounds.claims.lemma1 import LOG_GOALS, _context, statement_chain

    proof = CLAIM.reading(reading).symbolic()
    first = proof.chain.parts[0]
    assert first.goal == LOG_GOALS[reading] and "abs-bound" in first.rules and len(proof.chain.parts) == 3
    lhs, rel, rhs = LOG_GOALS[reading]
    chain = statement_chain(reading)
    assert not chain.prove(lhs, rel, rhs * (1 - sp.Rational(1, 1000))).complete
    assert not chain.prove(lhs, ">=", rhs).complete
    for dropped in ("positive", "bounded-logits", "definition"):
        assert not statement_chain(reading, _context().without(dropped)).prove(lhs, rel, rhs).complete, dropped


def _L2(instance):
    return np.shape(instance["logits"])[-1] >= 2


def _tie_from_L2(tie_where, name, scale=1.0):
    """The tie of the reading's proof under its bind, at sweep batches and strategy examples with
    L >= 2, the reading's right side scaled by ``scale``."""
    from attnbounds.claims import lemma1

    return tie_where(CLAIM.reading(name), _L2, lemma1.sweep_instances, scale)


@pytest.mark.parametrize("name", ["reconstructed", "transcribed"])
def test_bind_ties_the_proof_to_the_sides_and_a_wrong_bound_unties(tie_where, name):
    got = _tie_from_L2(tie_where, name)
    assert got["status"] == "tied" and got["instances"] == 32, got
    assert {"bounded-logits", "definition", "positive"} <= set(got["hypotheses"])
    assert _tie_from_L2(tie_where, name, scale=1 + 1e-3)["status"] == "untied"
    assert _tie_from_L2(tie_where, name, scale=1 - 1e-3)["status"] == "untied"


def test_bind_picks_the_token_where_the_sides_maximum_is_attained():
    from attnbounds.claims.lemma1 import _alpha, _bind_reconstructed, _f, _R, _x

    inst = {"family": "taylor2", "param": 1.0, "a": 2.0, "logits": np.array([-1.0, 2.0, -1.0, -1.0])}
    values = _bind_reconstructed(inst)
    assert values[_x] == pytest.approx(5.0) and values[_alpha] == pytest.approx(5 / (5 + 3 * 0.5), rel=1e-12)
    assert list(values[_f]) == pytest.approx([0.5, 0.5, 0.5]) and values[_R] == pytest.approx(1.5)


@pytest.mark.parametrize("name", ["reconstructed", "transcribed"])
def test_the_reading_carries_its_bind_and_ties_with_one_token_included(name):
    # At L = 1 the other tokens' sequence is empty and the hypotheses about every one of them
    # (F[j] >= m) hold vacuously; the readings' own sweep and strategy (L = 1 included) tie.
    from attnbounds.claims import lemma1
    from attnbounds.engine.tie import tie

    r = CLAIM.reading(name)
    assert r.bind is getattr(lemma1, f"_bind_{name}")
    got = tie(r, r.symbolic())
    assert got["status"] == "tied" and got["instances"] >= 16, got
