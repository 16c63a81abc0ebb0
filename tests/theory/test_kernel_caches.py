"""The kernel keeps its pure checks of an expression per arguments (``proof._kept``, and
``_wrong_facts`` per expression): a kept answer must be the one for those very arguments, a
symbol's declarations included, and a caller that changes an answer must not change the next."""

from __future__ import annotations

import sympy as sp

from attnbounds.theory import proof


def test_a_kept_answer_depends_on_the_symbols_declarations():
    """Two symbols named k, one positive and one only an integer: over the range −1 … −1 the
    first is misdeclared and the second is not, in either order of asking."""
    k_pos = sp.Symbol("k", integer=True, positive=True)
    k_int = sp.Symbol("k", integer=True)
    assert proof._index_misfit(k_pos, -1, -1) != []
    assert proof._index_misfit(k_int, -1, -1) == []
    assert proof._index_misfit(k_pos, -1, -1) != []  # asked again, after the other: still its own
    f = sp.Function("f")
    assert proof._misdeclared(sp.Sum(f(k_pos), (k_pos, -1, -1)))
    assert proof._misdeclared(sp.Sum(f(k_int), (k_int, -1, -1))) == []


def test_a_kept_answer_depends_on_the_relations():
    """k positive over 1 … n: misfit without n >= 1 known, none with it (the relations are part
    of the key)."""
    k = sp.Symbol("k", integer=True, positive=True)
    lo = sp.Symbol("lo", integer=True)
    assert proof._index_misfit(k, lo, 5) != []
    assert proof._index_misfit(k, lo, 5, (sp.Ge(lo, 1),)) == []
    assert proof._index_misfit(k, lo, 5) != []


def test_wrong_facts_reads_the_declarations():
    """An even symbol is a node whose facts the kernel does not read; a plain one of the same
    name is not."""
    assert proof._wrong_facts(sp.Symbol("p", even=True) + 1) is not None
    assert proof._wrong_facts(sp.Symbol("p") + 1) is None
    assert proof._wrong_facts(sp.Symbol("p", even=True) + 1) is not None


def test_a_caller_that_changes_an_answer_changes_no_other():
    k = sp.Symbol("k", integer=True, positive=True)
    f = sp.Function("f")
    e = sp.Sum(f(k), (k, -1, -1))
    first = proof._misdeclared(e)
    first.append("changed by a caller")
    assert "changed by a caller" not in proof._misdeclared(e)
    profile = proof._range_profile(1, 5, ())
    profile["changed"] = True
    assert "changed" not in proof._range_profile(1, 5, ())
    assert profile != proof._range_profile(1, 5, ())


def test_unhashable_arguments_are_checked_without_the_cache():
    """Relations given as a list (unhashable) get the answer the same relations give as a tuple."""
    k = sp.Symbol("k", integer=True, positive=True)
    lo = sp.Symbol("lo", integer=True)
    before = proof._index_misfit.cache_info()
    assert proof._index_misfit(k, lo, 5, [sp.Ge(lo, 1)]) == proof._index_misfit(k, lo, 5, (sp.Ge(lo, 1),)) == []
    after = proof._index_misfit.cache_info()
    assert after.hits + after.misses == before.hits + before.misses + 1  # the tuple only went to the cache


def test_a_subs_is_judged_by_its_own_declaration_not_by_a_kept_look_alike():
    """Review 68: SymPy compares Subs(t, t, −1) with t plain and with t positive as equal (its
    canonical variables drop the declaration). A kept answer for the first made the kernel prove
    √((−1)²) = −1 through the second, which SymPy builds as Subs(t, t, −1) from Subs(√(t²), t, −1)."""
    from attnbounds.theory.proof import Chain, by

    t, tp = sp.Symbol("t"), sp.Symbol("t", positive=True)
    plain, declared = sp.Subs(t, t, -1), sp.Subs(sp.sqrt(tp ** 2), tp, -1)
    assert plain == declared and hash(plain) == hash(declared)  # SymPy's equality, which the fix works around
    assert Chain(plain).eq(-1, by.identity()).prove(plain, "=", -1).complete  # true: t plain
    assert proof._misdeclared(plain) == []
    assert proof._misdeclared(declared) != []
    res = Chain(declared).eq(-1, by.identity()).prove(declared, "=", -1)
    assert not res.complete and "substitution" in res.first_failure
    even = sp.Subs(sp.Symbol("t", even=True) + 1, sp.Symbol("t", even=True), 2)
    assert proof._wrong_facts(sp.Subs(t + 1, t, 2)) is None
    assert proof._wrong_facts(even) is not None


def test_a_context_holding_a_subs_bypasses_the_caches_keyed_by_contexts():
    """Review 69: contexts hash and compare by their hypotheses, so two contexts whose only
    difference is a declaration inside a Subs are one key; ``_lemma_defined_cached`` and the
    lemma checks, keyed by a context, check such a context afresh."""
    c = sp.Symbol("c", real=True)
    t, tp = sp.Symbol("t"), sp.Symbol("t", positive=True)
    plain = proof.Context({"h": sp.Eq(c, sp.Subs(t, t, -1))})
    declared = proof.Context({"h": sp.Eq(c, sp.Subs(sp.sqrt(tp ** 2), tp, -1))})
    assert plain == declared and hash(plain) == hash(declared)  # SymPy's equality, which the guard works around
    assert proof._equal_apart(plain) and proof._equal_apart((c, declared))
    assert not proof._equal_apart(proof.Context({"h": sp.Eq(c, -1)}))
    before = proof._lemma_defined_cached.cache_info()
    proof._lemma_defined_cached(c, c + 1, plain)
    proof._lemma_defined_cached(c, c + 1, declared)
    after = proof._lemma_defined_cached.cache_info()
    assert (after.hits, after.misses) == (before.hits, before.misses)  # neither went to the cache
