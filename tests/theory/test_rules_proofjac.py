"""The general-L matrix rules of the proof kernel (proofjac): each accepts the right
instantiation and rejects wrong ones; the Lemma 2 chains check for every L."""

import numpy as np
import pytest
import sympy as sp

from attnbounds.engine.refute import NoNumericForm, refute
from attnbounds.theory import jacobian as thj
from attnbounds.theory.proof import Chain, Context, Mat, MaxOver, MinOver, OpNorm, by, matmul

S_ = thj.ratio_setting()
L, i, j, k, f, fp, S, G = (S_[n] for n in ("L", "i", "j", "k", "f", "fp", "S", "G"))
Sig, D, J = S_["Sigma"], S_["D"], S_["J"]
DEF = Context({"definition": S_["definition"]})
RANGE_I = {"i>=1": i >= 1, "i<=L": i <= L}
u, v, q = sp.symbols("u v q", integer=True, positive=True)


def step(lhs, rel, rhs, justification, ctx=DEF):
    res = Chain(lhs, ctx).then(rel, rhs, justification).prove(lhs, "==" if rel == "=" else rel, rhs)
    return res.complete, res.step_checks[0].reason


def ok(*args, **kw):
    done, reason = step(*args, **kw)
    assert done, reason


def rejected(*args, **kw):
    done, reason = step(*args, **kw)
    assert not done, reason
    return reason


# ----------------------------------------------------------------------------- index-identity


def test_index_identity_collapses_a_kronecker_sum_only_in_range():
    ctx = DEF.extended(RANGE_I)
    ok(sp.Sum(sp.KroneckerDelta(i, j) * f[j], (j, 1, L)), "=", f[i], by.index_identity(), ctx=ctx)
    # without the range of i the sum may be 0 (i > L): rejected
    rejected(sp.Sum(sp.KroneckerDelta(i, j) * f[j], (j, 1, L)), "=", f[i], by.index_identity())
    rejected(sp.Sum(sp.KroneckerDelta(i, j) * f[j], (j, 1, L)), "=", f[i] / 2, by.index_identity(), ctx=ctx)
    # a delta that does not multiply the whole term is not collapsed: the sum is (L - 1) + 1/2
    rejected(sp.Sum(1 / (1 + sp.KroneckerDelta(i, j)), (j, 1, L)), "=", sp.Rational(1, 2), by.index_identity(), ctx=ctx)
    rejected(sp.Sum(f[j] / (1 + sp.KroneckerDelta(i, j)), (j, 1, L)), "=", f[i] / 2, by.index_identity(), ctx=ctx)


def test_index_identity_uses_only_named_definitions():
    ok(sp.Sum(f[k] / S, (k, 1, L)), "=", 1, by.index_identity(defs="definition"))
    rejected(sp.Sum(f[k] / S, (k, 1, L)), "=", 1, by.index_identity())  # S is any positive number
    rejected(sp.Sum(f[k] / S, (k, 1, L)), "=", 1, by.index_identity(defs="nonexistent"))
    rejected(sp.Sum(f[k] / S, (k, 1, L)), "<=", 1, by.index_identity(defs="definition"))


# ----------------------------------------------------------------------------- entrywise, submultiplicative


def test_entrywise_checks_the_jacobian_for_general_L():
    P = matmul(Sig, D)
    ok(OpNorm(J), "=", OpNorm(P), by.entrywise(J, P, defs="definition"))
    # D without the 1/F factor: J = Sigma diag(F') is wrong
    D_bad = Mat(sp.Lambda((u, v), sp.KroneckerDelta(u, v) * fp[v]), L)
    P_bad = matmul(Sig, D_bad)
    assert "differs" in rejected(OpNorm(J), "=", OpNorm(P_bad), by.entrywise(J, P_bad, defs="definition"))
    # the order of the factors matters (D Sigma is another matrix)
    P_swap = matmul(D, Sig)
    rejected(OpNorm(J), "=", OpNorm(P_swap), by.entrywise(J, P_swap, defs="definition"))
    # the definitions are needed, and the rhs must be the lhs with A replaced by B
    rejected(OpNorm(J), "=", OpNorm(P), by.entrywise(J, P))
    rejected(OpNorm(J), "=", 2 * OpNorm(P), by.entrywise(J, P, defs="definition"))


def test_submultiplicative_checks_the_product():
    ok(OpNorm(matmul(Sig, D)), "<=", OpNorm(Sig) * OpNorm(D), by.submultiplicative(Sig, D))
    rejected(OpNorm(matmul(D, Sig)), "<=", OpNorm(Sig) * OpNorm(D), by.submultiplicative(Sig, D))
    rejected(OpNorm(matmul(Sig, D)), "<=", OpNorm(Sig) * OpNorm(D) / 2, by.submultiplicative(Sig, D))
    rejected(OpNorm(matmul(Sig, D)), ">=", OpNorm(Sig) * OpNorm(D), by.submultiplicative(Sig, D))
    Dn = Mat(sp.Lambda((u, v), sp.KroneckerDelta(u, v)), L + 1)
    rejected(OpNorm(matmul(Sig, D)), "<=", OpNorm(Sig) * OpNorm(Dn), by.submultiplicative(Sig, Dn))


# ----------------------------------------------------------------------------- diag-norm, gershgorin-rows


def _term(bound, ctx):
    return Chain(sp.Abs(fp[k] / f[k]), ctx).le(bound, by.hypothesis("log-derivative"))


def test_diag_norm():
    ctx = DEF.extended({"log-derivative": sp.Abs(fp[k] / f[k]) <= G})
    ok(OpNorm(D), "<=", G, by.diag_norm(k, G, _term(G, ctx)), ctx=ctx)
    ok(OpNorm(D) / 2, "<=", G / 2, by.diag_norm(k, G, _term(G, ctx), c=sp.Rational(1, 2)), ctx=ctx)
    # Sigma is not diagonal
    rejected(OpNorm(Sig), "<=", G, by.diag_norm(k, G, _term(G, ctx)), ctx=ctx)
    # a bound the term chain does not prove
    rejected(OpNorm(D), "<=", G / 2, by.diag_norm(k, G / 2, _term(G / 2, ctx)), ctx=ctx)
    # without the hypothesis, and with a negative scale
    rejected(OpNorm(D), "<=", G, by.diag_norm(k, G, _term(G, DEF)))
    rejected(-OpNorm(D), "<=", -G, by.diag_norm(k, G, _term(G, ctx), c=-1), ctx=ctx)


def test_gershgorin_rows_on_sigma_and_rejections():
    lemma = thj.sigma_spectral_lemma(DEF)
    assert lemma.chain.prove(lemma.lhs, "<=", lemma.rhs).complete
    row = lemma.chain.steps[0].by.params["row"]
    # 1/4 is not a bound of the row sums (2 a_i (1 - a_i) reaches 1/2)
    rejected(OpNorm(Sig), "<=", sp.Rational(1, 4), by.gershgorin_rows(i, j, row))
    # J = Sigma D is not symmetric
    P = matmul(Sig, D)
    rejected(OpNorm(P), "<=", sp.Rational(1, 2), by.gershgorin_rows(i, j, row))
    # a row chain about another matrix
    rejected(OpNorm(D), "<=", sp.Rational(1, 2), by.gershgorin_rows(i, j, row))


# ----------------------------------------------------------------------------- abs-bound, sum-term, extrema


def test_abs_bound_and_kronecker_cases():
    a, b = sp.symbols("a b", real=True)
    ok(sp.Abs(a), "<=", b, by.abs_bound(), ctx=Context({"h": (a <= b, -a <= b)}))
    rejected(sp.Abs(a), "<=", b, by.abs_bound(), ctx=Context({"h": a <= b}))  # -b <= a not known
    # |delta_ij - f_j/S| = delta_ij + ... : a wrong sign pattern fails in the case i != j
    x = sp.KroneckerDelta(i, j) - f[j] / S
    y = sp.KroneckerDelta(i, j) - f[j] / S  # true only when i = j (1 - a_j >= 0 needs a fact)
    rejected(sp.Abs(x), "<=", y, by.abs_bound(cases=(i, j)))
    # without a case split the delta is an unknown: rejected too
    rejected(sp.Abs(f[i] * x / S), "<=", f[i] * (2 * sp.KroneckerDelta(i, j) - 1) * x / S, by.abs_bound())


def test_sum_term():
    ctx = DEF.extended(RANGE_I)
    ok(f[i], "<=", sp.Sum(f[k], (k, 1, L)), by.sum_term(k, 1, L, i, f[k]), ctx=ctx)
    rejected(f[i], "<=", sp.Sum(f[k], (k, 1, L)), by.sum_term(k, 1, L, i, f[k]))  # i may be out of range
    rejected(fp[i], "<=", sp.Sum(fp[k], (k, 1, L)), by.sum_term(k, 1, L, i, fp[k]), ctx=ctx)  # fp may be < 0
    rejected(2 * f[i], "<=", sp.Sum(f[k], (k, 1, L)), by.sum_term(k, 1, L, i, f[k], c=2), ctx=ctx)


def test_extremum_and_max_bound():
    mx, mn = MaxOver(sp.Lambda(q, fp[q]), L), MinOver(sp.Lambda(q, f[q]), L)
    ctx = DEF.extended(RANGE_I)
    ok(fp[i], "<=", mx, by.extremum(mx, i), ctx=ctx)
    ok(mn, "<=", f[i], by.extremum(mn, i), ctx=ctx)
    rejected(fp[i], "<=", mx, by.extremum(mx, i))  # i not in 1..L
    rejected(mx, "<=", fp[i], by.extremum(mx, i), ctx=ctx)
    rejected(f[i], "<=", mn, by.extremum(mn, i), ctx=ctx)
    rejected(-fp[i], "<=", -mx, by.extremum(mx, i, c=-1), ctx=ctx)
    term = Chain(fp[k], DEF).le(mx, by.extremum(mx, k))
    ok(mx, "<=", mx, by.max_bound(mx, mx, k, term))
    wrong = Chain(fp[k], DEF).le(mn, by.algebra())
    rejected(mx, "<=", mn, by.max_bound(mx, mn, k, wrong))


def test_algebra_facts_needs_checked_facts():
    mn = MinOver(sp.Lambda(q, f[q]), L)
    ctx = DEF.extended({"k>=1": k >= 1, "k<=L": k <= L})
    fact = Chain(mn, ctx).le(f[k], by.extremum(mn, k))
    ok(1 / f[k], "<=", 1 / mn, by.algebra_facts(fact), ctx=ctx)
    rejected(1 / f[k], "<=", 1 / mn, by.algebra())
    bad = Chain(mn, DEF).le(f[k], by.extremum(mn, k))  # k's range unknown: the fact fails
    rejected(1 / f[k], "<=", 1 / mn, by.algebra_facts(bad))


# ----------------------------------------------------------------------------- the chains, the refuter


@pytest.mark.parametrize("form", thj.GENERIC_FORMS)
def test_generic_chains_check_for_general_L(form):
    res = thj.generic_spectral_chain(form)
    assert res.complete and res.checked == res.steps == 4, res.first_failure
    assert {"entrywise", "submultiplicative", "diag-norm", "gershgorin-rows"} <= set(res.rules)
    # the goal's lhs is the spectral norm of the Jacobian, written as derivatives
    assert res.goal[0] == OpNorm(J) and J.entry(1, 2).has(sp.Derivative)
    if form == "G":  # dropping |F'/F| <= G breaks the chain
        assert not res.chain.prove(*res.goal, ctx=res.chain.ctx.without("log-derivative")).complete


def test_log_form_tighter_chain_and_a_false_goal():
    res = thj.log_form_tighter_chain()
    assert res.complete and res.checked == res.steps
    assert not res.chain.prove(res.goal[0], "<=", res.goal[2] / 2).complete


def test_refuter_evaluates_the_jacobian_chain_goal():
    res = thj.generic_spectral_chain("G")
    lhs, rel, rhs = res.goal
    assert refute(lhs, rel, rhs, res.chain.ctx, seed=0).assignment is None
    found = refute(lhs, rel, rhs, res.chain.ctx, drop="log-derivative", seed=0)
    assert found.assignment is not None and found.lhs > found.rhs and found.dropped_violated
    # recompute the counterexample's lhs with numpy: the Jacobian of F/sum F from f, fp
    n = int(found.assignment["L"])
    fv, fpv = (np.array(found.assignment[f"{name}(1..)"][:n]) for name in ("f", "fp"))
    Jn = (np.diag(fpv) * fv.sum() - np.outer(fv, fpv)) / fv.sum() ** 2
    assert np.linalg.norm(Jn, 2) == pytest.approx(found.lhs, rel=1e-9)
    scaled = refute(lhs, rel, rhs * sp.Rational(999, 1000), res.chain.ctx, seed=0)
    assert scaled.assignment is not None  # the bound is attained (softmax at logits (0, 0))


def test_refuter_refuses_a_positive_function_named_by_a_signed_value():
    g = sp.IndexedBase("g", real=True)
    F = S_["F"]
    ctx = Context({"definition": (sp.Eq(g[k], F(S_["l"][k])),), "k": (k >= 1, k <= L)})
    with pytest.raises(NoNumericForm):
        refute(sp.Sum(g[k], (k, 1, L)), ">=", 0, ctx, seed=0)


def test_two_term_chain_and_its_rules():
    res = thj.two_term_chain()
    assert res.complete and res.checked == res.steps == 5, res.first_failure
    assert {"opnorm-triangle", "rank-one", "l2-l1"} <= set(res.rules)


def test_opnorm_triangle_rank_one_l2_l1_reject_wrong_instantiations():
    x_ = sp.Lambda(q, f[q])
    y_ = sp.Lambda(q, fp[q])
    B = Mat(sp.Lambda((u, v), f[u] * fp[v] / S**2), L)
    A = Mat(sp.Lambda((u, v), sp.KroneckerDelta(u, v) * fp[v] / S), L)
    M = Mat(sp.Lambda((u, v), sp.KroneckerDelta(u, v) * fp[v] / S - f[u] * fp[v] / S**2), L)
    nf, nfp = (sp.sqrt(sp.Sum(e**2, (k, 1, L))) for e in (f[k], fp[k]))
    ok(OpNorm(M), "<=", OpNorm(A) + OpNorm(B), by.opnorm_triangle(A, B, sign=-1))
    rejected(OpNorm(M), "<=", OpNorm(A) + OpNorm(B), by.opnorm_triangle(A, B, sign=1))  # M is A - B
    rejected(OpNorm(M), "<=", OpNorm(A), by.opnorm_triangle(A, B, sign=-1))
    ok(OpNorm(B), "=", nf * nfp / S**2, by.rank_one(x_, y_, k, c=1 / S**2))
    rejected(OpNorm(B), "=", nf * nfp / S, by.rank_one(x_, y_, k, c=1 / S**2))  # wrong scale
    rejected(OpNorm(A), "=", nf * nfp / S**2, by.rank_one(x_, y_, k, c=1 / S**2))  # A is not rank one
    ok(nf, "<=", sp.Sum(f[k], (k, 1, L)), by.l2_l1(k, 1, L, f[k]))
    rejected(sp.Sum(f[k], (k, 1, L)), "<=", nf, by.l2_l1(k, 1, L, f[k]))  # the other way round
    rejected(nf, "<=", sp.Sum(f[k], (k, 1, L)) / 2, by.l2_l1(k, 1, L, f[k], c=sp.Rational(1, 2)))
    # a reversed range (L - 5 terms: SymPy reads it as minus a sum)
    rejected(sp.sqrt(sp.Sum(f[k] ** 2, (k, 1, L - 5))), "<=", sp.Sum(f[k], (k, 1, L - 5)), by.l2_l1(k, 1, L - 5, f[k]))


# ----------------------------------------------------------------------------- Corollary 3: mean-value, simplex-diameter, min-bound

FD = thj.finite_difference_setting()


def _fd_parts():
    res = thj.finite_difference_chain()
    part_a, part_b = res.chain.steps[0].by.params["chains"]
    return res, part_a, part_b


def test_finite_difference_chain_checks_for_general_L():
    res, part_a, part_b = _fd_parts()
    assert res.complete and res.checked == res.steps, res.first_failure
    assert {"min-bound", "mean-value", "simplex-diameter", "entrywise"} <= set(res.rules)
    # without the unit-vector hypothesis the chain fails
    assert not res.chain.prove(*res.goal, ctx=res.chain.ctx.without("unit")).complete
    # the statement of the paper's figure, min{1/(4T), sqrt 2 / eps}, is not reached
    T_, eps = thj.T, FD["eps"]
    assert not res.chain.prove(res.goal[0], "<=", sp.Min(1 / (4 * T_), sp.sqrt(2) / eps)).complete


def test_mean_value_rejects_wrong_instantiations():
    _, part_a, _ = _fd_parts()
    mv = part_a.steps[0].by
    g, eps, L_ = FD["g"], FD["eps"], FD["L"]
    km = sp.Symbol("k_mv", integer=True, positive=True)
    big = mv.params["bound"] * sp.sqrt(sp.Sum(FD["d"](km) ** 2, (km, 1, L_))) / eps
    ctx = Context({"unit": FD["unit"]})
    ok(g, "<=", big, mv, ctx=ctx)
    p = dict(mv.params)
    # a bound the Jacobian chain does not reach
    rejected(g, "<=", big / 2, type(mv)("mean-value", {**p, "bound": p["bound"] / 2}), ctx=ctx)
    # the free point must be free: a hypothesis about zeta makes the Jacobian bound local
    z = FD["z"]
    pinned = ctx.extended({"pin": sp.Eq(z[1], 0)})
    assert "free" in rejected(g, "<=", big, mv, ctx=pinned)
    # a non-smooth map (|x|) is refused
    x, q = FD["x"], FD["q"]
    rough = sp.Lambda(q, sp.Abs(x[q]))
    rejected(g, "<=", big, type(mv)("mean-value", {**p, "phi": rough}), ctx=ctx)
    # the displacement must be the one of the step
    rejected(g, "<=", big, type(mv)("mean-value", {**p, "d": sp.Lambda(q, 2 * eps * FD["v"][q])}), ctx=ctx)


def test_simplex_diameter_and_min_bound_reject_wrong_instantiations():
    _, part_a, part_b = _fd_parts()
    sd = part_b.steps[0].by
    g, eps, L_, q = FD["g"], FD["eps"], FD["L"], FD["q"]
    ctx = Context({"unit": FD["unit"]})
    ok(g, "<=", sp.sqrt(2) / eps, sd, ctx=ctx)
    rejected(g, "<=", 1 / eps, sd, ctx=ctx)  # the diameter is sqrt 2, not 1
    # vectors that do not sum to 1 (no normalisation)
    lg = FD["l"]
    raw_p = sp.Lambda(q, sp.exp(lg[q] + eps * FD["v"][q]))
    raw_q = sp.Lambda(q, sp.exp(lg[q]))
    k = sp.Symbol("k_sd", integer=True, positive=True)
    raw_g = sp.sqrt(sp.Sum((raw_p(k) - raw_q(k)) ** 2, (k, 1, L_))) / eps
    rejected(raw_g, "<=", sp.sqrt(2) / eps, type(sd)("simplex-diameter", {**sd.params, "p": raw_p, "q": raw_q}), ctx=ctx)
    # signed vectors summing to 1: p = (v_k + 1/L) may be negative
    sp_p = sp.Lambda(q, FD["v"][q] - sp.Sum(FD["v"][k], (k, 1, L_)) / L_ + 1 / L_)
    s_g = sp.sqrt(sp.Sum((sp_p(k) - raw_q(k) / sp.Sum(raw_q(k), (k, 1, L_))) ** 2, (k, 1, L_))) / eps
    rejected(s_g, "<=", sp.sqrt(2) / eps,
             type(sd)("simplex-diameter", {**sd.params, "p": sp_p, "q": sp.Lambda(q, raw_q(q) / sp.Sum(raw_q(k), (k, 1, L_)))}), ctx=ctx)
    # min-bound needs a checked chain to every argument of the Min
    T_ = thj.T
    rejected(g, "<=", sp.Min(1 / (2 * T_), sp.sqrt(2) / eps), by.min_bound(part_a), ctx=ctx)
    rejected(g, "<=", sp.Min(1 / (4 * T_), sp.sqrt(2) / eps), by.min_bound(part_a, part_b), ctx=ctx)
    rejected(g, "<=", 1 / (2 * T_), by.min_bound(part_a, part_b), ctx=ctx)


def test_refuter_on_the_finite_difference_goal():
    res = thj.finite_difference_chain()
    lhs, rel, rhs = res.goal
    found = refute(lhs, rel, rhs, res.chain.ctx, drop="unit", seed=0)
    assert found.assignment is not None and found.lhs > found.rhs and found.dropped_violated
    assert refute(lhs, rel, rhs * sp.Rational(999, 1000), res.chain.ctx, seed=0).assignment is not None
