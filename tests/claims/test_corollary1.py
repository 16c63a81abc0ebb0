"""C1 claim object: both readings on batches and single instances, the sharp case, the box."""

import math

import numpy as np
import pytest
from hypothesis import given, settings

from attnbounds.claims.base import holds_relation
from attnbounds.claims.corollary1 import CLAIM, certify_box, certify_weight_bound, logit_bound


def _direct(instance):
    # plain softmax weights and Δ, written out independently of the claim module
    q = np.asarray(instance["q"], dtype=float)
    keys = np.asarray(instance["keys"], dtype=float)
    T = np.asarray(instance["T"], dtype=float)
    z = np.einsum("...ld,...d->...l", keys, q) / T[..., None]
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    delta = np.linalg.norm(q, axis=-1) * np.linalg.norm(keys, axis=-1).max(axis=-1)
    return e / e.sum(axis=-1, keepdims=True), delta


def test_registry_and_structure():
    assert [r.name for r in CLAIM.readings] == ["transcribed", "reconstructed"]
    assert "Cauchy" in CLAIM.proof and "$" in CLAIM.proof
    assert set(CLAIM.symbolic_form()) >= {"alpha_lower", "alpha_upper", "tight_lower", "tight_upper"}


def test_logit_bound_and_validation():
    assert float(logit_bound({"q": [0.0, 2.0], "keys": [[1.0, 1.0], [3.0, 0.0]], "T": 1.0})) == pytest.approx(6.0)
    with pytest.raises(ValueError, match="keys"):
        logit_bound({"q": [1.0, 2.0], "keys": [[1.0, 1.0, 1.0]], "T": 1.0})
    with pytest.raises(ValueError, match="T"):
        CLAIM.reading("transcribed").sides({"q": [1.0], "keys": [[1.0]], "T": 0.0})



def test_bounds_recomputed_independently():
    rng = np.random.default_rng(1)
    sharp = 0
    for _ in range(20):
        batch = CLAIM.reading("transcribed").sweep(rng, 64)
        alpha, delta = _direct(batch)
        L = alpha.shape[-1]
        x = 2 * delta / batch["T"]
        ok = x < 600  # keep e^{±x} finite for the direct check
        a, xx = alpha[ok], x[ok][:, None]
        assert np.all(a <= np.exp(xx) / L * (1 + 1e-9)) and np.all(a >= np.exp(-xx) / L * (1 - 1e-9))
        hi = 1 / (1 + (L - 1) * np.exp(-xx))
        lo = 1 / (1 + (L - 1) * np.exp(xx))
        assert np.all(a <= hi * (1 + 1e-9)) and np.all(a >= lo * (1 - 1e-9))
        sharp += int(np.sum(np.isclose(a.max(axis=-1), hi[:, 0], rtol=1e-9) & (L > 1)))
    assert sharp > 0


def test_aligned_keys_attain_the_sharp_form():
    q = np.array([0.6, 0.8])
    keys = np.array([[1.2, 1.6], [-1.2, -1.6], [-1.2, -1.6]])  # |k| = 2, Δ = 2
    inst = {"q": q, "keys": keys, "T": 0.5}
    s = CLAIM.reading("reconstructed").sides(inst)
    assert float(s.lhs) == pytest.approx(float(s.rhs), rel=1e-12)
    alpha, delta = _direct(inst)
    assert delta == pytest.approx(2.0)
    assert alpha[0] == pytest.approx(1 / (1 + 2 * math.exp(-8.0)), rel=1e-12)
    t = CLAIM.reading("transcribed").sides(inst)
    assert float(t.rhs) == pytest.approx(8.0) and float(t.lhs) < float(t.rhs)


@pytest.mark.parametrize("name", ["transcribed", "reconstructed"])
def test_hypothesis_strategy_finds_no_violation(name):
    r = CLAIM.reading(name)

    @settings(max_examples=40, deadline=None, database=None)
    @given(r.strategy())
    def check(instance):
        assert bool(holds_relation(r.sides(instance), r.relation, r.rtol, r.atol))
        assert bool(CLAIM.hypotheses[0].check(instance))

    check()


def test_symbolic_and_certificate():
    # the statement (identity, instance of Lemma 1's statement chain, identity) and each side, one step
    # citing Lemma 1's checked chain (rule "instance"): fully checked
    for name in ("transcribed", "reconstructed"):
        proof = CLAIM.reading(name).symbolic()
        assert proof.status is True and proof.checked == proof.steps == 5
        assert "instance" in proof.rules and "monotone" in proof.rules
    assert certify_box().status is True
    # α_i = 1/(1 + Σ e^{l_j − l_i}) uses each difference once, so even one box certifies
    assert certify_box(1).status is True
    with pytest.raises(ValueError, match="pieces"):
        certify_box(0)


def test_weight_bound_certificates_on_the_whole_box():
    for L in (1, 2, 3):
        for side in ("lower", "upper"):
            assert certify_weight_bound(L, delta="1", T="1/2", side=side).status is True


@pytest.mark.parametrize(
    "kwargs, match",
    [(dict(L=9), "L: must be"), (dict(delta=-1), "delta:"), (dict(side="both"), "side:"), (dict(T=0), "T:")],
)
def test_weight_bound_certificate_errors_name_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        certify_weight_bound(**kwargs)


def test_tiny_vectors_do_not_underflow_the_logit_bound():
    inst = {"q": np.array([1e-300]), "keys": np.array([[3.0], [-3.0]]), "T": 0.01}
    assert float(logit_bound(inst)) == pytest.approx(3e-300, rel=1e-12)
    assert bool(CLAIM.hypotheses[0].check(inst))


# ------------------------------------------------------------------ the reading's statement and its tie


@pytest.mark.parametrize("reading", ["reconstructed", "transcribed"])
def test_first_part_proves_the_readings_log_form(reading):
    import sympy as sp

    from attnbounds.claims.corollary1 import LOG_GOALS, _context, _Delta, statement_chain

    proof = CLAIM.reading(reading).symbolic()
    first = proof.chain.parts[0]
    assert first.goal == LOG_GOALS[reading] and first.rules[:2] == ("identity", "instance") and len(proof.chain.parts) == 3
    lhs, rel, rhs = LOG_GOALS[reading]
    chain = statement_chain(reading)
    assert not chain.prove(lhs, rel, rhs * (1 - sp.Rational(1, 1000))).complete
    assert not chain.prove(lhs, rel, rhs.xreplace({_Delta: _Delta / 2})).complete
    assert not chain.prove(lhs, ">=", rhs).complete
    for dropped in ("cauchy-schwarz", "definition"):
        assert not statement_chain(reading, _context().without(dropped)).prove(lhs, rel, rhs).complete, dropped


def _L2(instance):
    return np.shape(instance["keys"])[-2] >= 2


def _tie_from_L2(tie_where, name, scale=1.0):
    """The tie of the reading's proof under its bind, at sweep batches and strategy examples with
    L >= 2, the reading's right side scaled by ``scale``."""
    from attnbounds.claims import corollary1

    return tie_where(CLAIM.reading(name), _L2, corollary1.sweep_instances, scale)


@pytest.mark.parametrize("name", ["reconstructed", "transcribed"])
def test_bind_ties_the_proof_to_the_sides_and_a_wrong_bound_unties(tie_where, name):
    got = _tie_from_L2(tie_where, name)
    assert got["status"] == "tied" and got["instances"] >= 16, got
    # the stated definitions, and the logit bounds, which are lemmas derived from them (no longer stated)
    assert set(got["hypotheses"]) == {"logits", "largest-key", "Delta", "definition", "cauchy-schwarz",
                                      "cauchy-schwarz-lower", "cauchy-schwarz-others", "cauchy-schwarz-others-lower"}
    assert _tie_from_L2(tie_where, name, scale=1 + 1e-3)["status"] == "untied"
    assert _tie_from_L2(tie_where, name, scale=1 - 1e-3)["status"] == "untied"


def test_bind_picks_the_extreme_token_and_leaves_out_a_sum_beyond_floats():
    from attnbounds.claims.corollary1 import _alpha, _bind_reconstructed, _bind_transcribed, _l, _L, _R, _z

    inst = {"q": np.array([0.6, 0.8]), "keys": np.array([[-1.2, -1.6], [1.2, 1.6], [-1.2, -1.6]]), "T": 0.5}
    values = _bind_reconstructed(inst)  # the aligned key attains the sharp bound
    assert values[_l] == pytest.approx(2.0) and list(values[_z]) == pytest.approx([-2.0, -2.0]) and values[_L] == 3
    assert values[_alpha] == pytest.approx(1 / (1 + 2 * math.exp(-8.0)), rel=1e-12)
    assert values[_R] == pytest.approx(2 * math.exp(-4.0), rel=1e-12)
    far = {"q": np.array([1.0]), "keys": np.array([[-1.0], [800.0]]), "T": 1.0}  # e^{800} is beyond floats
    assert _R not in _bind_transcribed(far)


@pytest.mark.parametrize("name", ["reconstructed", "transcribed"])
def test_the_reading_carries_its_bind_and_ties_with_one_token_included(name):
    # At L = 1 the other tokens' sequence is empty and the hypotheses about every one of them
    # (z[j]) hold vacuously; the readings' own sweep and strategy (L = 1 included) tie.
    from attnbounds.claims import corollary1
    from attnbounds.engine.tie import tie

    r = CLAIM.reading(name)
    assert r.bind is getattr(corollary1, f"_bind_{name}")
    got = tie(r, r.symbolic())
    assert got["status"] == "tied" and got["instances"] >= 16, got


# ------------------------------------------------------------------ the logit bound is derived, not stated


def test_context_states_definitions_only_and_derives_the_logit_bound():
    import sympy as sp

    from attnbounds.claims import corollary1 as c1
    from attnbounds.theory.proof import Lemma

    ctx = c1._context()
    stated = {k for k, h in ctx.hypotheses.items() if not isinstance(h, Lemma)}
    assert stated == {"logits", "largest-key", "Delta", "definition"}
    # no stated hypothesis bounds a logit by Delta: the bound is what the lemmas prove
    for name in stated:
        h = ctx.hypotheses[name]
        for r in h if isinstance(h, tuple) else (h,):
            assert not (r.has(c1._Delta) and (r.has(c1._l) or r.has(c1._z))), (name, r)
    want = {"cauchy-schwarz": (c1._l, "<=", c1._Delta), "cauchy-schwarz-lower": (c1._l, ">=", -c1._Delta),
            "cauchy-schwarz-others": (c1._z[c1._j], "<=", c1._Delta),
            "cauchy-schwarz-others-lower": (c1._z[c1._j], ">=", -c1._Delta)}
    for name, goal in want.items():
        lemma = ctx.hypotheses[name]
        assert isinstance(lemma, Lemma) and (lemma.lhs, lemma.relation, lemma.rhs) == goal
        res = lemma.chain.prove(*goal)
        assert res.complete, (name, res.first_failure)
        assert {"hypothesis", "monotone-chain", "identity", "monotone"} <= set(res.rules), res.rules
        assert sp.sympify(lemma.chain.ctx.hypotheses["Delta"].rhs).has(c1._K)
    assert c1.check_proof("transcribed").complete


@pytest.mark.parametrize("name", ["cauchy-schwarz", "cauchy-schwarz-lower", "cauchy-schwarz-others",
                                  "cauchy-schwarz-others-lower"])
def test_a_halved_logit_bound_is_rejected(name):
    # mutation: Delta -> Delta/2 in the derived bound; the chain proves |l| <= Delta, not Delta/2
    from attnbounds.claims import corollary1 as c1
    from attnbounds.theory.proof import Context, Lemma

    ctx = c1._context()
    lemma = ctx.hypotheses[name]
    half = lemma.rhs.xreplace({c1._Delta: c1._Delta / 2})
    assert not lemma.chain.prove(lemma.lhs, lemma.relation, half).complete
    mutated = Context({**ctx.hypotheses, name: Lemma(lemma.chain, lemma.lhs, lemma.relation, half)})
    assert not mutated.relation(name)  # the kernel does not accept the mutated lemma as a fact
    # and the readings' proofs, which need that side of the bound, no longer check
    for reading in ("transcribed", "reconstructed"):
        assert not c1.check_proof(reading, ctx=mutated).complete, reading


def test_a_halved_delta_or_a_key_bound_is_rejected():
    import sympy as sp

    from attnbounds.claims import corollary1 as c1
    from attnbounds.theory.proof import Context, Norm

    base = c1._definitions()
    for key, value in (("Delta", sp.Eq(c1._Delta, Norm(c1._q) * c1._K / 2)),  # Delta defined too small
                       ("largest-key", (Norm(c1._k) <= 2 * c1._K, Norm(c1._keys[c1._j]) <= 2 * c1._K))):
        ctx = Context({**base, key: value})
        for name, (x, key_vec, side) in c1.LOGIT_LEMMAS.items():
            chain = c1._logit_bound_chain(x, key_vec, ctx, side)
            rel, rhs = ("<=", c1._Delta) if side == "upper" else (">=", -c1._Delta)
            assert not chain.prove(x, rel, rhs).complete, (key, name)


@pytest.mark.parametrize("dropped", ["logits", "largest-key", "Delta"])
def test_each_definition_is_needed(dropped):
    from attnbounds.claims import corollary1 as c1

    for reading in ("transcribed", "reconstructed"):
        assert not c1.check_proof(reading, ctx=c1._context().without(dropped)).complete, (reading, dropped)


def test_the_tie_checks_the_definitions_against_the_instances():
    # a bind that gives K half the largest key norm breaks "largest-key" (and Delta = |q| K):
    # the definitions are checked at the readings' instances, not taken on trust
    import dataclasses

    from attnbounds.claims import corollary1 as c1
    from attnbounds.engine.tie import tie

    r = CLAIM.reading("transcribed")

    def halved(instance):
        values = r.bind(instance)
        return {**values, c1._K: values[c1._K] / 2}

    got = tie(dataclasses.replace(r, bind=halved), r.symbolic())
    assert got["status"] == "untied" and "hypothesis" in got["detail"], got


def test_corollary2_cites_the_bounded_logits_theorem():
    from attnbounds.claims import corollary1 as c1

    ctx = c1.bounded_logits_context()
    assert set(ctx.hypotheses) == {"bounded-logits", "definition"}
    assert all(c.prove(*g).complete for c, g in zip(c1.proof_chains("transcribed", ctx), c1.GOALS["transcribed"]))
