"""The step audit (attnbounds.engine.audit): every step the kernel accepts, searched numerically
under the context it was checked in; a counterexample makes the symbolic method a conflict."""

from __future__ import annotations

import dataclasses

import pytest
import sympy as sp

from attnbounds.claims.base import Proof, Reading
from attnbounds.engine import Budget, combine, run_exact
from attnbounds.engine.audit import audit_chain, audit_proof
from attnbounds.engine.refute import refute
from attnbounds.theory import proof as kernel
from attnbounds.theory.proof import Chain, Context, Expect, Prob, WeightedNorm, by, record_steps

x = sp.Symbol("x", positive=True)


def _broken_algebra(monkeypatch):
    """A kernel hole on purpose: the algebra rule accepts any step."""
    rule = kernel.RULES["algebra"]
    monkeypatch.setitem(kernel.RULES, "algebra", dataclasses.replace(rule, check=lambda *a: "accepted (broken)"))


def test_a_sound_chain_has_no_counterexample():
    res = Chain(x**2 + 1).ge(2 * x, by.algebra()).prove(x**2 + 1, ">=", 2 * x)
    got = audit_chain(res, draws=400)
    assert (got.steps, got.searched, got.counterexamples) == (1, 1, 0)
    assert got.results[0].outcome == "no counterexample"


def test_a_false_step_the_kernel_accepts_is_found(monkeypatch):
    _broken_algebra(monkeypatch)
    res = Chain(x).ge(2 * x, by.algebra()).prove(x, ">=", 2 * x)
    assert res.complete  # the broken rule let x >= 2x through
    got = audit_chain(res, draws=400)
    assert got.counterexamples == 1
    assert got.refuted[0].rule == "algebra" and "lhs=" in got.refuted[0].detail


def test_the_symbolic_method_reports_the_hole_as_a_conflict(monkeypatch):
    _broken_algebra(monkeypatch)
    goal = (x, ">=", 2 * x)
    reading = Reading("t", "x >= 2x", "x \\ge 2x", relation=">=",
                      symbolic=lambda: Proof.from_chain(Chain(x).ge(2 * x, by.algebra()).prove(*goal), "broken"))
    out = run_exact(reading, "symbolic", Budget(audit=400))
    assert out.conflict is not None and "step audit refutes" in out.conflict
    assert out.proof["audit"]["counterexamples"] == 1
    judged = combine(reading, [out], Budget(audit=400))
    assert judged.verdict == "undecided" and "CONFLICT" in judged.evidence


def test_a_checked_proof_carries_the_audit_counts():
    goal = (x**2 + 1, ">=", 2 * x)
    reading = Reading("t", "x^2 + 1 >= 2x", "x^2 + 1 \\ge 2x", relation=">=",
                      symbolic=lambda: Proof.from_chain(Chain(x**2 + 1).ge(2 * x, by.algebra()).prove(*goal), "AM-GM"))
    out = run_exact(reading, "symbolic", Budget(audit=400))
    assert out.outcome == "pass" and out.conflict is None
    assert out.proof["audit"] == {"steps": 1, "searched": 1, "no_numeric_form": 0, "no_draw_met": 0,
                                  "counterexamples": 0, "draws_per_step": 400}


def test_an_incomplete_proof_is_not_audited():
    assert audit_proof(Proof(None, "argued")) is None


def test_steps_are_recorded_with_their_local_context():
    """A term chain is checked under the index range, a case under its condition: the recorded
    contexts carry them, so the audit judges a step where the kernel did."""
    i, n = sp.Symbol("i", integer=True), sp.Symbol("n", integer=True, positive=True)
    term = Chain(i - 1).le(i, by.algebra())  # i - 1 <= i needs nothing; the range is still in its context
    chain = Chain(sp.Sum(i - 1, (i, 1, n))).le(sp.Sum(i, (i, 1, n)), by.termwise(index=i, lo=1, hi=n, term=term))
    with record_steps() as got:
        res = chain.prove(sp.Sum(i - 1, (i, 1, n)), "<=", sp.Sum(i, (i, 1, n)))
    assert res.complete
    contexts = {sc.rule: ctx for sc, ctx in got}
    assert set(contexts) == {"termwise", "algebra"}
    names = {rule: {str(k) for k in ctx.hypotheses} for rule, ctx in contexts.items()}  # the kernel's private keys
    assert {"__index_lo__", "__index_hi__"} <= names["algebra"] and not names["termwise"]


def test_record_steps_records_a_cached_lemmas_steps():
    lemma = kernel.Lemma(Chain(x**2).ge(0, by.algebra()), x**2, ">=", 0)
    ctx = Context({"sq": lemma})
    chain = Chain(x**2 + 1).ge(1, by.hypothesis(name="sq"))
    chain.prove(x**2 + 1, ">=", 1, ctx=ctx)  # fills the lemma cache
    hits = kernel._lemma_check_cached.cache_info().hits
    with record_steps() as got:
        res = chain.prove(x**2 + 1, ">=", 1, ctx=ctx)
        assert res.complete
    assert kernel._lemma_check_cached.cache_info().hits > hits  # the lemma came from the cache
    assert [sc.rule for sc, _ in got].count("algebra") == 1  # and its step was recorded, once
    assert [sc.rule for sc, _ in kernel.accepted_steps(res)] == [sc.rule for sc, _ in got]


def _nested_chain():
    """A chain with a lemma, a term chain (under its index range) and a step of its own."""
    i, n = sp.Symbol("i", integer=True), sp.Symbol("n", integer=True, positive=True)
    lemma = kernel.Lemma(Chain(x**2).ge(0, by.algebra()), x**2, ">=", 0)
    term = Chain(i - 1).le(i, by.algebra())
    chain = (Chain(sp.Sum(i - 1, (i, 1, n)))
             .le(sp.Sum(i, (i, 1, n)), by.termwise(index=i, lo=1, hi=n, term=term))
             .le(sp.Sum(i, (i, 1, n)) + x**2, by.hypothesis(name="sq")))
    goal = (sp.Sum(i - 1, (i, 1, n)), "<=", sp.Sum(i, (i, 1, n)) + x**2)
    return chain, goal, Context({"sq": lemma})


def test_prove_keeps_the_steps_a_check_again_records():
    """The audit reads the steps Chain.prove recorded, instead of checking the chain again: the
    two agree, step by step and context by context, and a copy of the record is checked again."""
    chain, goal, ctx = _nested_chain()
    res = chain.prove(*goal, ctx=ctx)
    assert res.complete
    kept = kernel.accepted_steps(res)
    kernel._lemma_check_cached.cache_clear()
    with record_steps() as again:
        chain.prove(*goal, ctx=ctx)
    as_values = [[(sc.rule, sc.lhs, sc.rhs, c) for sc, c in steps] for steps in (kept, tuple(again))]
    assert as_values[0] == as_values[1]
    assert sorted(sc.rule for sc, _ in kept) == ["algebra", "algebra", "hypothesis", "termwise"]
    copy = dataclasses.replace(res)
    assert kernel.accepted_steps(copy) is None  # not issued by prove: no record
    assert [(a.rule, a.lhs, a.rhs) for a in audit_chain(copy, draws=1).results] == \
        [(a.rule, a.lhs, a.rhs) for a in audit_chain(res, draws=1).results]  # checked again, the same steps


def test_refute_keeps_a_free_integer_that_is_also_an_index():
    """Found by the audit: a free integer i (the step is about D(i), given i <= N) that a
    fact's handling binds as an index lost its own value (KeyError)."""
    i, N = sp.Symbol("i", integer=True, positive=True), sp.Symbol("N", integer=True, positive=True)
    r, M = sp.Symbol("r", real=True), sp.Symbol("M", positive=True)
    D, s1, s2 = sp.Function("D"), sp.Function("sigma1", positive=True), sp.Function("sigma2", positive=True)
    facts = {"w": WeightedNorm(f=D(i), radius=M, l1=s1(i), l2=s2(i)), "hi": sp.Le(i, N)}
    lhs = Prob(D(i) - Expect(D(i)) <= r - Expect(D(i)))
    rhs = sp.exp(-(r - Expect(D(i))) ** 2 / (2 * M**2 * s2(i)))
    # McDiarmid's lower tail holds below the mean (T2's case r < E[D(i)]) under the weighted-norm fact
    got = refute(lhs, "<=", rhs, Context({**facts, "case": sp.Gt(Expect(D(i)) - r, 0)}), seed=0, batches=2, batch=50)
    assert got.assignment is None and got.tried > 0
    # and not above it (P = 1 when r >= max D): this test had asserted it without the case, and
    # passed only because 3 of its 100 draws met the fact; at the drawn i they all can now
    assert refute(lhs, "<=", rhs, Context(facts), seed=0, batches=2, batch=50).assignment is not None


def test_the_committed_verdicts_carry_a_clean_audit():
    """Every proved reading's row has its step audit: no step refuted, most searched. (Each
    reading's audit is run by tests/claims/test_proofs_checked.py; this reads the committed
    table, made at the default budget.)"""
    import json
    from pathlib import Path

    rows = json.loads((Path(__file__).resolve().parents[1] / "docs" / "_generated" / "verdicts.json").read_text())
    rows = rows["rows"] if isinstance(rows, dict) else rows
    proved = [r for r in rows if r["verdict"] == "proved" and r.get("kind", "reading") == "reading"]
    audits = [r["proof"]["audit"] for r in proved if r["proof"] and "symbolic" in (r.get("methods") or [])]
    assert audits and len(audits) == sum(1 for r in proved if "symbolic" in (r.get("methods") or []))
    assert all(a["counterexamples"] == 0 and a["draws_per_step"] == 1200 for a in audits)
    steps, searched = sum(a["steps"] for a in audits), sum(a["searched"] for a in audits)
    judged = searched - sum(a["no_draw_met"] for a in audits)  # a search where no draw met the hypotheses judged nothing
    assert steps > 400 and searched > 0.9 * steps and judged > 0.85 * steps


def test_a_search_in_which_no_draw_met_the_hypotheses_is_counted_apart():
    y = sp.Symbol("y", real=True)
    res = Chain(y).le(y + 1, by.algebra()).prove(y, "<=", y + 1)
    steps = kernel.accepted_steps(res)
    impossible = Context({"h": (sp.Ge(y, 1), sp.Le(y, 0))})  # no draw meets it
    empty = audit_chain(dataclasses.replace(res, chain=dataclasses.replace(res.chain, ctx=impossible)), draws=200)
    assert steps and empty.searched == empty.steps and empty.no_draw_met == empty.steps
    assert all(r.met == 0 for r in empty.results)
    full = audit_chain(res, draws=200)
    assert full.no_draw_met == 0 and all(r.met > 0 for r in full.results)
    assert full.to_dict()["no_draw_met"] == 0 and empty.to_dict()["no_draw_met"] == empty.steps


def test_an_equation_is_not_solved_for_an_indexed_value_nor_implicitly():
    """Found by this stop's audit, on the step of C2's chains that cites Lemma 1
    (β_t <= e^{2a/T}/L, β_t = e^{u_t/T} / (e^{u_t/T} + S_t), S_t = Σ_j e^{w_{t,j}/T}): the
    refuter solved β_t's definition for T, an answer with T still inside the sum ('no value
    for T'); refusing that, it solved for the value β[t] itself, which the table β[t] is read
    from never showed: two false counterexamples. Equations are solved for scalar symbols only."""
    from attnbounds import claims as registry
    from attnbounds.engine import audit as au

    claim = next(c for c in registry.all_claims() if c.id == "C2")
    reading = next(r for r in claim.readings if r.name == "bounded")
    steps = [s for s in au._accepted_steps(reading.symbolic().chain)
             if s[0] == "instance" and sp.sstr(s[1]).startswith("beta[")]
    assert steps
    for rule, lhs, rel, rhs, ctx in steps:
        found = refute(lhs, rel, rhs, ctx, seed=[0, 12345], batches=6, batch=200)
        assert found.assignment is None, found.text()


def test_accepted_steps_names_a_bad_argument():
    res = Chain(x**2 + 1).ge(2 * x, by.algebra()).prove(x**2 + 1, ">=", 2 * x)
    for bad, words in ((None, "got NoneType"), ("res", "got str"), (kernel.AllOf((res,)), "each of its parts")):
        with pytest.raises(TypeError, match=r"check: must be a ChainCheck") as err:
            kernel.accepted_steps(bad)
        assert words in str(err.value)


def _claim_steps(claim_id, reading_name, rule, starts):
    from attnbounds import claims as registry
    from attnbounds.engine import audit as au

    claim = next(c for c in registry.all_claims() if c.id == claim_id)
    reading = next(r for r in claim.readings if r.name == reading_name)
    got = [s for s in au._accepted_steps(reading.symbolic().chain) if s[0] == rule and sp.sstr(s[1]).startswith(starts)]
    assert got, (claim_id, reading_name, rule, starts)
    return got


@pytest.mark.parametrize("where", [("T1ii", "reconstructed", "jensen", "norm(Expect("),
                                   ("T2", "hoeffding", "weighted-norm", "D(i)")])
def test_a_step_about_a_drawn_index_meets_its_hypotheses(where):
    """A term chain's step about term i (given i <= L) reads the hypotheses at the drawn i:
    Cond(s_S(i), not in_S(i)) = Y - y[i] and a weighted-norm fact on D(i) are now made to hold
    there (they were made to hold only over a summation range, and no draw met them: the
    audit's search of these steps judged nothing). A false variant of the step is found."""
    import zlib

    for rule, lhs, rel, rhs, ctx in _claim_steps(*where):
        stream = [0, zlib.crc32(f"{sp.sstr(lhs)} {rel} {sp.sstr(rhs)}".encode())]  # the audit's, at its draws
        true = refute(lhs, rel, rhs, ctx, seed=stream, batches=6, batch=200)
        assert true.assignment is None and true.tried > 0
        false_rhs = 2 * rhs + 1 if rel in ("=", "==", ">=") else rhs / 2 - 1
        false_rel = ">=" if rel in ("=", "==") else rel
        assert refute(lhs, false_rel, false_rhs, ctx, seed=stream, batches=6, batch=200).assignment is not None


def test_a_statement_about_a_random_variable_holds_almost_surely():
    """D(i) >= 0 for a weighted norm D: judged at every atom of the law (it had no numeric form)."""
    i = sp.Symbol("i", integer=True, positive=True)
    M = sp.Symbol("M", positive=True)
    D, s1, s2 = sp.Function("D"), sp.Function("sigma1", positive=True), sp.Function("sigma2", positive=True)
    ctx = Context({"w": WeightedNorm(f=D(i), radius=M, l1=s1(i), l2=s2(i))})
    holds = refute(D(i), ">=", 0, ctx, seed=0, batches=3, batch=200)
    assert holds.assignment is None and holds.tried > 0
    assert refute(D(i), ">=", M * s1(i) / 2, ctx, seed=0, batches=3, batch=200).assignment is not None
    event = refute(kernel.Indicator(D(i) <= M), "<=", kernel.Indicator(D(i) <= 2 * M), ctx, seed=0, batches=3, batch=200)
    assert event.assignment is None and event.tried > 0
    assert refute(kernel.Indicator(D(i) <= 2 * M), "<=", kernel.Indicator(D(i) <= M), ctx,
                  seed=0, batches=3, batch=200).assignment is not None


def test_a_vector_at_an_index_where_nothing_was_drawn_is_a_vector_of_nan():
    """Σ_{i=1}^{L-N} ‖x_i‖ = −Σ_{i=L-N+1}^{0} ‖x_i‖ (Karr): the backward range reaches x_0, where
    nothing is drawn; it was a scalar nan, and ‖a x_i − c‖ there 'a sum of a vector and a scalar'."""
    i = sp.Symbol("i", integer=True)
    L, N = sp.Symbol("L", integer=True, positive=True), sp.Symbol("N", integer=True, positive=True)
    xv, c = sp.IndexedBase("x", commutative=False), sp.Symbol("c", commutative=False)
    al = sp.IndexedBase("alpha", nonnegative=True)
    term = kernel.Norm(al[i] * xv[i] - c)
    got = refute(sp.Sum(term, (i, 1, L - N)), "==", -sp.Sum(term, (i, L - N + 1, 0)), Context({}),
                 seed=0, batches=3, batch=100)
    assert got.assignment is None and got.tried > 0


# --- the refuter's numeric forms for functions and derivatives (what the audit evaluates) ---

k = sp.Symbol("k", integer=True, positive=True)
n = sp.Symbol("n", integer=True, positive=True)
t = sp.Symbol("t", real=True)
G = sp.Function("G")


def _found(lhs, rel, rhs, ctx=None):
    return refute(lhs, rel, rhs, ctx or Context({}), seed=0).assignment is not None


def test_special_functions_are_evaluated_at_the_draws():
    assert _found(sp.binomial(n, 3), "<=", 0)  # SymPy once called C(n, 3) <= 0 (review 34): C(5, 3) = 10
    assert not _found(sp.binomial(n + 2, 2), ">=", 1)
    assert _found(sp.KroneckerDelta(1, k), "=", 0)  # 1 at k = 1
    assert not _found(sp.KroneckerDelta(0, k), "=", 0)  # k >= 1
    assert not _found(sp.sign(t) * t, "=", sp.Abs(t))
    assert _found(sp.gamma(x + sp.Rational(1, 2)), ">=", 1)  # Γ(3/2) = 0.886


def test_derivatives_are_taken_numerically_not_by_sympy():
    assert not _found(sp.Derivative(x**3, x), "=", 3 * x**2)
    assert _found(sp.Derivative(x**3, x), "=", 3 * x**2 * (1 + sp.Rational(1, 1000)))
    assert not _found(sp.Derivative(sp.exp(t) * sp.sin(t), (t, 2)), "=", 2 * sp.exp(t) * sp.cos(t))
    # SymPy differentiates G(k) by G(1) as 0, wrong at k = 1 (review 46): the draws see it
    assert sp.Derivative(G(k), G(1)).doit() == 0
    assert _found(sp.Derivative(G(k) * G(2), G(1)), "=", 0)
    assert not _found(sp.Derivative(G(1) * G(2), G(1)), "=", G(2))


def test_a_kink_is_never_a_counterexample():
    """|t| has no derivative at 0 and tight draws put t there: the estimate's error is large,
    the value nan, so sign(t) (0 at 0) is never contradicted there, nor anything else."""
    assert not _found(sp.Derivative(sp.Abs(t), t), "=", sp.sign(t), Context({"t>=0": t >= 0}))
    assert not _found(sp.Derivative(sp.Abs(t), t), "=", 1, Context({"t>=0": t >= 0}))


def test_sums_are_read_as_sympy_reads_them():
    """Karr's convention (the kernel's, SymPy's): the sum from n to n - 3 is minus the sum from
    n - 2 to n - 1, not empty; several limits, the first innermost."""
    j = sp.Symbol("j", integer=True)
    backwards = sp.Sum(k, (k, n, n - 3))
    assert backwards.doit() == 3 - 2 * n
    assert not _found(backwards, "=", 3 - 2 * n)
    assert _found(backwards, "=", 0)
    assert not _found(sp.Product(k + 3, (k, n, n - 3)), "=", 1 / ((n + 1) * (n + 2)))
    assert not _found(sp.Sum(k * j, (k, 1, n), (j, 1, n + 1)), "=", n * (n + 1) ** 2 * (n + 2) / 4)
    assert _found(sp.Sum(k * j, (k, 1, n), (j, 1, n + 1)), "=", n * (n + 1) ** 2 * (n + 2) / 4 + 1)


def test_bad_draws_are_named():
    import pytest

    res = Chain(x**2 + 1).ge(2 * x, by.algebra()).prove(x**2 + 1, ">=", 2 * x)
    for bad in (0, -3, 1.5, True):
        with pytest.raises(ValueError, match="draws"):
            audit_chain(res, draws=bad)
    with pytest.raises(ValueError, match="audit"):
        Budget(audit=0)


def test_a_definition_of_an_indexed_value_is_assigned_not_solved_for_a_symbol():
    """C2's β[t] = e^{u[t]/T}/(e^{u[t]/T} + S[t]) was solved for T (T = u[t]/log(…β[t]…)), so T
    was read from values drawn at random and S[t]'s own definition, which reads T, never held:
    the audit's search of C2's step β[t] <= e^{2a/T}/L judged nothing. The definition is now
    assigned in β's table at the drawn t."""
    import zlib

    from attnbounds.engine.refute import _solve_equations

    (rule, lhs, rel, rhs, ctx), = _claim_steps("C2", "bounded", "instance", "beta[t]")
    stream = [0, zlib.crc32(f"{sp.sstr(lhs)} {rel} {sp.sstr(rhs)}".encode())]  # the audit's, at its draws
    true = refute(lhs, rel, rhs, ctx, seed=stream, batches=6, batch=200)
    assert true.assignment is None and true.tried > 0
    assert refute(lhs, rel, rhs / 2, ctx, seed=stream, batches=6, batch=200).assignment is not None
    beta, u, S = (sp.IndexedBase(n) for n in ("beta", "u", "S"))
    t = sp.Symbol("t", integer=True, positive=True)
    T = sp.Symbol("T", positive=True)
    eq = sp.Eq(beta[t], sp.exp(u[t] / T) / (sp.exp(u[t] / T) + S[t]))
    assert _solve_equations([eq], {T}, set()) == ([], [eq])
