"""``attnbounds derive [NAME] [--normalizer SPEC [--half-width A] [--time-limit S]] [--latex] [--json]``."""

from __future__ import annotations

import click
import sympy as sp

from attnbounds.cli.common import UsageError, claims_options, load_user_claims, write_json
from attnbounds.numerics.validation import exact_number
from attnbounds.theory import derivation

#: The ``format`` of ``derive NAME --json``'s object (none before it), and of ``derive
#: --normalizer SPEC --json``'s. The lists that ``derive --json`` and ``derive CLAIM --json``
#: print (``[{"name", "title"}]``) stay bare lists.
DERIVE_FORMAT = "attnbounds-derive/1"

#: The title of ``derive --normalizer SPEC``'s derivation (its name is the normalizer's spec).
NORMALIZER_TITLE = "Lemma 1 (logits in [-a, a]) and Lemma 2 constants of alpha_i = F(l_i)/sum_j F(l_j)"

#: ``derive --normalizer``'s default wall-clock safety net, in seconds, for each of its two exact
#: routines (Lemma 1's m and M; Lemma 2's G) and for simplifying g. SymPy's solvers have no budget of their own, and
#: some F keep ``solveset`` busy for minutes before it gives up; the decided cases of the tests
#: and the tutorial take under 5 s each.
DERIVE_TIME_LIMIT = 60.0


@click.command()
@click.argument("name", required=False)
@click.option("--latex", is_flag=True, help="Print LaTeX instead of SymPy strings.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@click.option("--claims", "claim_specs", multiple=True, metavar="SPEC",
              help="Load your own claims first (a file 'path/to/my_claim.py' or 'module:object', repeatable, as "
                   "`check --claims` takes them): the derivations they register become NAMEs, and their claim ids "
                   "list theirs.")
@click.option("--normalizer", "normalizer_spec", default=None, metavar="SPEC",
              help="Instead of NAME (both is an error): Lemma 1's and Lemma 2's constants for normalizer SPEC, "
                   "resolved as `check --normalizer` resolves it: a registered name ('softplus', 'softmax(T=0.5)'), "
                   "'module:object', 'path.py:object' or an entry point. It needs a symbolic F with "
                   "alpha_i = F(l_i)/sum_j F(l_j), independent of L: a ratio-form family, or a plug-in made with "
                   "attnbounds.numerics.normalizers.from_sympy. Prints F; g = (log F)'; m = min F and M = max F on "
                   "[-a, a] and C1 = m/M, C2 = M/m (Lemma 1: C1/L <= alpha_i <= C2/L); G = sup |g| over all real "
                   "logits, and Lemma 2's bounds in it: G/4 (an entry of the Jacobian), sqrt(2) G/4 (a row), G/2 "
                   "(spectral and Frobenius norms). The temperature T stays a symbol unless SPEC sets it. A value "
                   "SymPy does not decide exactly is printed 'undecided' (--json: \"expr\": null, \"undecided\": "
                   "true), never a guess; Lemma 2's bounds where G is undecided are printed in G, marked "
                   "'(undecided)' (--json: the expression in G, \"undecided\": true).")
@click.option("--half-width", "half_width", default=None, metavar="A",
              help="With --normalizer: Lemma 1's logit range [-A, A] for a positive number A (its exact value as "
                   "written: 0.5 is 1/2), instead of the symbol a; the values where F is not monotone are then "
                   "decided by its critical points in the range.")
@click.option("--time-limit", "time_limit", type=click.FloatRange(min=0), default=DERIVE_TIME_LIMIT,
              show_default=True, metavar="S",
              help="With --normalizer: a wall-clock safety net, in seconds, for each of the two exact routines "
                   "(Lemma 1's m and M; Lemma 2's G), and for simplifying g; a routine that runs past it is "
                   "printed undecided, with 'TIME LIMIT' in its note (--json: \"timed_out\": true), and g unsimplified. "
                   "0: none. Enforced by SIGALRM in the main thread of a POSIX process only.")
def derive(name, latex, as_json, claim_specs, normalizer_spec, half_width, time_limit):
    """Print the closed forms of derivation NAME (no NAME: list the derivations; a claim id
    such as L2: list that claim's derivations).

    With --normalizer SPEC instead of NAME: the constants of Lemma 1 and Lemma 2 for that
    normalizer's F, in the same layout (--latex, --json as for NAME)."""
    if latex and as_json:  # as claims refuses the pair (it was accepted here, --latex ignored: trial 132)
        raise UsageError("--latex: not with --json, whose output has both the plain and the LaTeX forms")
    user = load_user_claims(claim_specs)
    if normalizer_spec is not None:
        if name is not None:
            raise UsageError(f"NAME and --normalizer: give one of them, not both (NAME {name!r} is a derivation or "
                             "claim; --normalizer SPEC prints the constants of SPEC's F)")
        data = normalizer_derivation(normalizer_spec, half_width, _time_limit(time_limit))
        _emit(data, latex, as_json)
        return
    if half_width is not None:
        raise UsageError("--half-width: only with --normalizer SPEC (it sets the logit range of Lemma 1's m and M)")
    if click.get_current_context().get_parameter_source("time_limit") is not click.core.ParameterSource.DEFAULT:
        raise UsageError("--time-limit: only with --normalizer SPEC (a registered derivation NAME has no search to "
                         "limit)")
    if name is None:
        if as_json:
            write_json([{"name": n, "title": derivation.get(n).title} for n in derivation.names()], None)
            return
        for n in derivation.names():
            click.echo(f"{n:<14} {derivation.get(n).title}")
        return
    if name not in derivation.names():
        of_claim = _of_claim(name, user)
        if of_claim:  # a claim id: list that claim's derivations
            if as_json:
                write_json([{"name": n, "title": derivation.get(n).title} for n in of_claim], None)
                return
            how = "" if user is None else claims_options(claim_specs) + " "
            click.echo(f"{name}: {len(of_claim)} derivation(s); print one with `attnbounds derive {how}NAME`:")
            for n in of_claim:
                click.echo(f"{n:<14} {derivation.get(n).title}")
            return
    if name not in derivation.names() and _claims_named(name, user):
        raise UsageError(f"NAME: claim {name} names no derivation; `attnbounds derive"
                         f"{'' if user is None else ' ' + claims_options(claim_specs)}` lists them")
    try:
        data = derivation.to_json(name)
    except KeyError as exc:
        from attnbounds.claims.registry import ids
        from attnbounds.suggest import did_you_mean

        hint = did_you_mean(name, [*derivation.names(), *(ids() if user is None else [c.id for c in user])])
        raise UsageError(f"NAME: {exc.args[0]} (or a claim id such as L2, for its derivations){hint}") from None
    _emit(data, latex, as_json)


def _emit(data: dict, latex: bool, as_json: bool) -> None:
    """Print a derivation's ``{"name", "title", "results"}``: JSON, or one line per result (a
    result SymPy left undecided reads ``undecided``)."""
    if as_json:
        write_json({"format": DERIVE_FORMAT, **data}, None)
        return
    click.echo(f"{data['name']}: {data['title']}")
    for key, res in data["results"].items():
        shown = res["latex"] if latex else res["expr"]
        value = ("undecided" if shown is None else f"{shown} (undecided)") if res.get("undecided") else shown
        click.echo(f"  {key} = {value}")
        if "maximizer" in res:
            where = res["maximizer"]
            if isinstance(where, dict):  # trial 49 (LaTeX), trial 50 (text): not a Python dict
                where = "; ".join(f"{k} = {v}" for k, v in where.items())
            click.echo(f"      attained at: {where}")
        if "note" in res:
            click.echo(f"      {res['note']}")


def _claims_named(name: str, user=None) -> list:
    """The claims whose id (or paper-qualified id) is ``name``: the package's, or with ``--claims`` the user's."""
    if user is not None:
        return [c for c in user if name in (c.id, f"{c.paper}:{c.id}")]
    from attnbounds.claims import registry

    try:
        claim, rest = registry.split_id(name)
    except (KeyError, ValueError):
        return []
    return [claim] if not rest else []


def _of_claim(name: str, user=None) -> list[str]:
    """The derivations of claim ``name`` (``L2`` -> ``L2-generic``, ``L2-softmax``); with ``--claims``
    (``user``: the claims loaded), those its claim of that id names."""
    named = [n for c in _claims_named(name, user) for n in c.derivations]
    if user is None:  # (a trial: C3 names L2-softmax, and `derive C3` was refused)
        named += [n for n in derivation.names() if n.startswith(name + "-")]
    return list(dict.fromkeys(named))


# --------------------------------------------------------------------------------------
# derive --normalizer SPEC
# --------------------------------------------------------------------------------------


def _undecided(note: str, timed_out=None) -> dict:
    """A result SymPy did not decide: no expression (``null`` in JSON), never a guess; with
    ``"timed_out": true`` where ``--time-limit`` cut its search short."""
    out = {"expr": None, "latex": None, "undecided": True, "note": note}
    if timed_out:
        out["timed_out"] = True
    return out


def _time_limit(value) -> float | None:
    """``--time-limit``'s seconds (None for 0: no limit), else a UsageError naming it."""
    import math

    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (value >= 0 and math.isfinite(value)):
        raise UsageError(f"--time-limit: must be a finite number of seconds >= 0 (0: none), got {value!r}")
    return float(value) or None


def _simplified_log_derivative(F) -> sp.Expr:
    """g = F'/F, simplified (the ``g`` row of ``derive --normalizer``)."""
    from attnbounds.theory import normalization as thn

    return sp.simplify(sp.diff(F, thn.l) / F)


def _within(seconds, routine):
    """(routine(), None, False), or (None, why, timed_out) where it ran past ``seconds``
    (:func:`attnbounds.engine.methods.wall_clock_limit`; None: no limit) or SymPy ran out of
    recursion depth (trial 51: ``--half-width 1e300``)."""
    from attnbounds.engine.methods import MethodTimeout, wall_clock_limit

    try:
        with wall_clock_limit(seconds):
            return routine(), None, False
    except MethodTimeout as exc:
        return None, str(exc), True
    except RecursionError:
        return None, "SymPy ran out of recursion depth (RecursionError)", False


def normalizer_derivation(spec: str, half_width=None, time_limit: float | None = DERIVE_TIME_LIMIT) -> dict:
    """``{"name", "title", "results"}`` of ``derive --normalizer SPEC``, as
    :func:`attnbounds.theory.derivation.to_json` gives a registered derivation's.

    Lemma 1: m, M on [−a, a] from :func:`attnbounds.theory.normalization.normalizer_constants`
    (``half_width``: a positive number A for a, as ``--half-width`` writes it; default the symbol a).
    Lemma 2: G = sup |(log F)'| over all real logits, from the exact table of
    :func:`attnbounds.theory.jacobian.family_log_derivative_sup` for a ratio-form family, else
    from :func:`attnbounds.theory.normalization.log_derivative_extremes`; the bounds are those of
    the ``L2-generic`` derivation with G substituted. A bad SPEC, or one without a symbolic F
    independent of L, is a :class:`UsageError` naming ``--normalizer``. ``time_limit`` (seconds,
    or None for none) is the wall-clock safety net of each of the two exact routines, and of
    g's simplification; a result it cuts short is undecided, with ``"timed_out": true`` (g is
    then printed unsimplified). POSIX main thread only (elsewhere no limit).
    """
    from attnbounds.numerics import normalizers as nz
    from attnbounds.theory import normalization as thn

    try:
        N = nz.resolve(spec, flag="--normalizer")  # as check resolves it, with a trial run
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if N.sympy_F is None:
        raise UsageError(f"--normalizer: {spec!r} has no symbolic form F with alpha_i = F(l_i)/sum_j F(l_j), which "
                         "derive needs (make one with attnbounds.numerics.normalizers.from_sympy)")
    if N.depends_on_length or "n" in {s.name for s in N.sympy_F.free_symbols}:
        raise UsageError(f"--normalizer: {spec!r} depends on the number of keys n (F = {sp.sstr(N.sympy_F)}): "
                         "Lemma 1 needs F independent of L, so derive has no constants for it")
    symbolic_T = not _sets_temperature(N, spec)
    F = _theory_form(N.sympy_F, N, symbolic_T)
    l = thn.l
    hw = thn.a if half_width is None else _half_width(half_width)
    rng = f"[-{sp.sstr(hw)}, {sp.sstr(hw)}]"
    t_note = ("T: the temperature, a symbol (SPEC sets it so: name(T=0.5))" if symbolic_T
              else f"at T = {sp.sstr(exact_number(N.params['T'], 'T'))}")
    out = {
        "F": derivation.Result(F, note=f"alpha_i = F(l_i)/sum_j F(l_j); {t_note}").to_json(),
    }
    g, cut, timed_out = _within(time_limit, lambda: _simplified_log_derivative(F))
    jumps = "" if cut or thn.continuous_on_reals(F, l, unless_elementary=True) else (
        "; F is not shown continuous on the real line, so g is its derivative only where F is differentiable")
    # (trial 51: a step F printed g = 0 without a word)
    out["g"] = derivation.Result(sp.diff(F, l) / F if cut else g,
                                 note="g = F'/F = (log F)'" + (f" (not simplified: {cut})" if cut else "")
                                 + jumps).to_json()
    if timed_out:
        out["g"]["timed_out"] = True
    # Lemma 1
    unit = _at_unit_temperature(N, symbolic_T)
    try:
        k, cut, timed_out = _within(time_limit, lambda: _lemma1_constants(F, unit, hw))
    except ValueError as exc:  # F not positive on [-a, a] (trial 51: named as the range it is)
        raise UsageError(f"--normalizer: {spec!r}: {str(exc).replace('[-a, a]', rng)}") from None
    table = _family_constants(N, symbolic_T, hw) if k is None else None
    if table is not None:
        out.update(table)
    elif k is None:
        why = (f"{cut}; SymPy's search for F's extremes on {rng} was cut short" if cut else
               f"SymPy cannot show F monotone on {rng} nor decide where its critical points lie, or cannot decide m > 0")
        out["m"] = _undecided(f"min F on {rng}: undecided ({why})"
                              + ("; --half-width A gives a numeric range" if half_width is None and not cut else ""),
                              timed_out)
        out["M"] = _undecided(f"max F on {rng}: undecided (as m)", timed_out)
        out["C1"] = _undecided("m/M: undecided (as m)", timed_out)
        out["C2"] = _undecided("M/m: undecided (as m)", timed_out)
    else:
        how = f"F {k.method}" if k.method.startswith("monotone") else k.method
        out["m"] = derivation.Result(k.m, {"l": k.argmin}, f"min F on {rng} ({how})").to_json()
        out["M"] = derivation.Result(k.M, {"l": k.argmax}, f"max F on {rng} ({how})").to_json()
        out["C1"] = derivation.Result(k.C1, note="m/M; Lemma 1: alpha_i >= C1/L").to_json()
        out["C2"] = derivation.Result(k.C2, note="M/m; Lemma 1: alpha_i <= C2/L").to_json()
    # Lemma 2: G, then L2-generic's bounds (proved there) with G substituted
    from attnbounds.theory.jacobian import G as G_symbol

    sup, cut, timed_out, refused = _family_sup(N, symbolic_T), None, False, None
    if sup is None:
        try:
            sup, cut, timed_out = _within(time_limit, lambda: _log_derivative_sup(F, unit))
        except _NotPositive as exc:
            refused = str(exc)
    if sup is None:
        G, tail = G_symbol, "; in terms of G, undecided for this F"
        why = (refused or f"{cut}; SymPy's search for the extremes of g was cut short" if refused or cut else
               "SymPy cannot show F and g continuous on the real line, finds no finite set of critical points of g, "
               "or cannot order its values and limits")
        out["G"] = _undecided(f"sup |g| over all real logits: undecided ({why})", timed_out)
    else:
        G, where, note = sup
        tail = "; no finite bound (G = oo)" if G == sp.oo else ""
        out["G"] = derivation.Result(G, None if where is None else {"l": where}, note).to_json()
    bounds = derivation.get("L2-generic").compute()
    for key in ("entry", "row", "spectral", "frobenius"):
        out[key] = derivation.Result(bounds[key].expr.xreplace({G_symbol: G}),
                                     note=f"Lemma 2: {bounds[key].note}{tail}").to_json()
        if sup is None:  # written in G, which is undecided (trial 49: --json did not say so)
            out[key]["undecided"] = True
            if timed_out:
                out[key]["timed_out"] = True
    return {"name": N.spec, "title": NORMALIZER_TITLE, "results": out}


def _sets_temperature(N, spec: str) -> bool:
    """Whether SPEC (``softmax(T=0.5)``, even ``softmax(T=1)``) or the normalizer object itself
    (made with ``with_params(T=...)``) sets the temperature; else T stays a symbol."""
    base = N.base_params or {}
    if "T" not in base or base["T"] != N.params["T"]:
        return True
    head, paren, args = spec.partition("(")
    return bool(paren) and "T" in {part.partition("=")[0].strip() for part in args.rstrip().rstrip(")").split(",")}


def _theory_form(expr, N, symbolic_T: bool) -> sp.Expr:
    """``expr`` (the normalizer's ``sympy_F``, or an expression in its parameters) in the theory's
    symbols: the logit l; T the positive symbol, or its value; every other parameter its value
    (exact: the decimal each prints as, :func:`~attnbounds.numerics.validation.exact_number`), as
    :meth:`Normalizer.ratio_form` substitutes them."""
    from attnbounds.theory import normalization as thn

    subs = {}
    for s in expr.free_symbols:
        if s.name == "l":
            subs[s] = thn.l
        elif s.name == "T":
            subs[s] = thn.T if symbolic_T else exact_number(N.params["T"], "T")
        elif N.params.get(s.name) is not None:
            subs[s] = exact_number(N.params[s.name], s.name)
    return expr.xreplace(subs)


def _family_constants(N, symbolic_T: bool, half_width) -> dict | None:
    """m, M, C1 and C2 (JSON results) for a family whose Lemma 1 constants the ``L1-constants``
    derivation works out by hand (taylor2, even_power: not monotone, so
    :func:`~attnbounds.theory.normalization.normalizer_constants` leaves them undecided for a
    symbolic a), where the normalizer's F is the family's, or the family's at l/T (a becomes
    a/T; then the symbol a is ``half_width``), whatever the normalizer is called; None otherwise
    (trial 49)."""
    from attnbounds.theory import normalization as thn

    match = _family_form(N)
    if match is None or match[0] not in ("taylor2", "even_power"):
        return None
    name, form = match
    scale, how = ({thn.a: thn.a / thn.T}, ", with a/T for a: F is the family's at l/T") if form else ({}, "")
    if name != N.name:
        how += f"; F is the family {name}'s"
    at = {thn.a: half_width}
    rng = f"[-{sp.sstr(half_width)}, {sp.sstr(half_width)}]"
    done = derivation.get("L1-constants").compute()
    out = {}
    for key, role in (("m", f"min F on {rng}"), ("M", f"max F on {rng}"), ("C1", "m/M; Lemma 1: alpha_i >= C1/L"),
                      ("C2", "M/m; Lemma 1: alpha_i <= C2/L")):
        res = done[f"{name}_{key}"]
        note = f"{role} (L1-constants' {name}_{key}{how}{'; ' + res.note if res.note else ''})"
        where = None if res.maximizer is None else {k: _family_point(v, form, scale, at, N, symbolic_T)
                                                    for k, v in res.maximizer.items()}
        out[key] = derivation.Result(_theory_form(res.expr.xreplace(scale).xreplace(at), N, symbolic_T), where,
                                     note).to_json()
    return out


def _family_point(v, scaled: bool, scale: dict, at: dict, N, symbolic_T: bool):
    """A point of L1-constants' worked case (the family's l, a function of a) as a point of the
    normalizer's F: with F the family's at l/T, T times the family's point at a/T; then a is the
    half-width and the parameters take their values."""
    if not isinstance(v, sp.Basic):
        return v
    from attnbounds.theory import normalization as thn

    if scaled:
        v = thn.T * v.xreplace(scale)
    return _theory_form(v.xreplace(at), N, symbolic_T)


def _family_sup(N, symbolic_T: bool):
    """(G, where, note) for F a ratio-form family of the theory on the real line (the family's
    F, or its F at l/T, whose G is the table's divided by T), whatever the normalizer is called:
    the exact table of :func:`attnbounds.theory.jacobian.family_log_derivative_sup`, with the
    parameters' values; None for any other F."""
    from attnbounds.theory import jacobian as thj
    from attnbounds.theory import normalization as thn

    match = _family_form(N)
    if match is None:
        return None
    name, form = match
    expr, how = thj.family_log_derivative_sup()[name]
    at_T = "" if symbolic_T else f", at T = {sp.sstr(exact_number(N.params['T'], 'T'))}"
    which = "" if name == N.name else f", as F is the family {name}'s"
    note = f"sup |g| over all real logits: L2-generic's G_{name} ({how}){which}{at_T}"
    if form:
        expr = expr / thn.T
        note = (f"sup |g| over all real logits: L2-generic's G_{name} = {sp.sstr(expr * thn.T)} ({how}), over T, "
                f"as F is the family {name}'s at l/T{at_T}")
    return _theory_form(expr, N, symbolic_T), None, note


def _family_form(N) -> tuple[str, bool] | None:
    """Which family of the theory the normalizer's F is (:func:`attnbounds.theory.normalization.family_of`,
    the family of N's name first): (name, False) for the family's F itself, (name, True) for the
    family's F at l/T (a family without T), None for neither."""
    from attnbounds.theory import normalization as thn

    return thn.family_of(N.sympy_F, values=N.params, first=N.name)


def _at_unit_temperature(N, symbolic_T: bool):
    """(F_1, scale) where the normalizer's F with T a symbol is F_1(l/T), checked exactly (F_1: F
    at T = 1; every plug-in from ``from_sympy`` is so): scale is the symbol T, or T's value where
    SPEC sets it; else None. At a set T, F_1's problems have the same answers as F's (points
    scaled by T) and are simpler for SymPy: F = 1 + e^{-l^2} at T = 0.7 is 1 + e^{-100 l^2/49}, on
    which solveset ran past 300 s (stop 50's lead)."""
    from attnbounds.theory import normalization as thn

    l, T = thn.l, thn.T
    F = _theory_form(N.sympy_F, N, True)
    if T not in F.free_symbols:
        return None
    F1 = F.xreplace({T: 1})
    if not derivation.is_identity(F, F1.xreplace({l: l / T})):
        return None
    return F1, (T if symbolic_T else _theory_form(T, N, False))


def _half_width(value) -> sp.Expr:
    """``--half-width``'s A: a positive number, its exact value as written, else a UsageError."""
    try:
        A = sp.Rational(str(value).strip())  # the decimal or fraction written: "0.1" is 1/10, "1/3" is 1/3
    except (TypeError, ValueError, ZeroDivisionError):
        raise UsageError(f"--half-width: expected a number such as 2, 0.5 or 1/3, got {value!r}") from None
    if not A.is_positive:
        raise UsageError(f"--half-width: must be a number > 0, got {value!r}")
    return A


def _lemma1_constants(F, unit, half_width):
    """:func:`attnbounds.theory.normalization.normalizer_constants` of F on [−A, A], A =
    ``half_width``, or from F_1 on [−A/T, A/T] where F(l) = F_1(l/T) (``unit``: (F_1, T) from
    :func:`_at_unit_temperature`, or None): F_1's values there are F's on [−A, A], and its points
    are T times F_1's. With T a symbol F comes first and F_1 where F is undecided (SymPy splits a
    piecewise F_1, ELU + 1 or e^{min(l, 3)}, by conditions in l alone); with T set, F_1 comes
    first, as its numbers are simpler."""
    from attnbounds.theory import normalization as thn

    def unit_constants():
        F1, scale = unit
        k1 = thn.normalizer_constants(F1, thn.l, half_width / scale)
        if k1 is None:
            return None
        return thn.NormalizerConstants(k1.m, k1.M, scale * k1.argmin, scale * k1.argmax, k1.method)

    if unit is None:
        return thn.normalizer_constants(F, thn.l, half_width)
    if unit[1] != thn.T:
        return unit_constants() or thn.normalizer_constants(F, thn.l, half_width)
    return thn.normalizer_constants(F, thn.l, half_width) or unit_constants()


class _NotPositive(ValueError):
    """F is decided not positive on the real line: Lemma 2's G does not apply."""


def _log_derivative_sup(F, unit):
    """(G, where, note) with G = sup |(log F)'| over all real logits, decided exactly by
    :func:`attnbounds.theory.normalization.log_derivative_extremes` (the routine ``check
    --normalizer`` uses), or None. Where F(l) = F_1(l/T)
    (``unit``: (F_1, T) from :func:`_at_unit_temperature`, T a symbol or its value), G = G_1/T,
    attained at T times F_1's point; with T a symbol, an F with T elsewhere is undecided (unless
    g is constant)."""
    from attnbounds.theory import normalization as thn

    l = thn.l
    F1, scale = (F, sp.S.One) if unit is None else unit
    if not thn.continuous_on_reals(F1, l, unless_elementary=True):  # SymPy's (log F)' drops F's jumps (trial 50)
        return None
    low = thn.real_line_extremes(F1, l, name="F")  # Lemma 2 needs F > 0 (trial 51: 3 + l^3 - 3l got G = oo)
    if low is not None and (low.m.is_extended_negative or (low.m.is_zero and low.argmin.is_finite)):
        raise _NotPositive(f"F is not positive on the real line (its infimum {sp.sstr(low.m)} is "
                           f"{'attained' if low.argmin.is_finite else 'approached'} at l = {sp.sstr(scale * low.argmin)}): "
                           "Lemma 2 needs F > 0")
    g1 = sp.simplify(sp.diff(F1, l) / F1)
    k = thn.log_derivative_extremes(g1, l)
    if k is None:
        return None
    if k.argmax is None and low is None and (k.m.is_infinite or k.M.is_infinite):
        return None  # SymPy's route: where F's positivity is undecided, F may vanish (review 51: 1 + sin l)
    if k.M == sp.oo or k.m == -sp.oo:
        G1, where = sp.oo, (k.argmax if k.M == sp.oo else k.argmin)
    elif (k.M + k.m).is_nonnegative:  # sup |g| = max(M, -m)
        G1, where = k.M, k.argmax
    elif (k.M + k.m).is_nonpositive:
        G1, where = -k.m, k.argmin
    elif k.argmax is None:  # SymPy's values, unordered by SymPy (e^{cos^3 l}: m = -M, with I inside): exact as a Max
        G1, where = sp.Max(k.M, -k.m), None
    else:
        return None
    note = "sup |g| over all real logits"
    if k.method == "constant":
        return G1 / scale, None, f"{note}: g is constant"
    if where is None:
        return G1 / scale, None, f"{note} ({k.method}, checked on a grid of logits; no point given)"
    if where.is_infinite:
        return G1 / scale, None, f"{note}, approached as l -> {sp.sstr(where)} (not attained)"
    return G1 / scale, scale * where, f"{note} (exact: critical points of g and its limits at -oo, oo)"
