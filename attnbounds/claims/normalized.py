"""A claim's reading under another normalizer: the same sides, with the weights drawn through it.

The paper proves its claims for softmax (or for a positive, length-independent ratio form
F). To ask whether a conclusion survives under another normalizer N (sparsemax, scalable
softmax, sigmoid attention, a plug-in, ...), :func:`under` keeps the reading's own
``sides`` (so its formula exists once, in its claim module) and maps every instance its
``strategy`` and ``sweep`` produce through :func:`reweigh`:

* an instance with attention ``"weights"`` gets ``weights = N(logits)``, with the instance's
  ``"logits"`` if it has them and ``log(weights) + c`` otherwise (so under softmax the instance
  is unchanged, and under N the weights are N applied to logits that give the original
  weights under softmax). Those logits are fixed only up to the constant c, which softmax
  ignores and N need not, so c is drawn (0 under softmax): the sweep takes 0 for a quarter of
  its instances and a uniform value in [-20, 20] for the others, Hypothesis any value in
  [-20, 20], shrunk toward 0. N then also meets positive logits (log(weights) alone is never
  above 0);
* an instance with a ratio-form ``"family"`` (Lemma 1's F) gets ``family = N`` and
  ``param = N``'s searched parameter (its temperature if it has none);
* an instance whose ``sides`` compute the weights themselves (from ``"logits"`` and ``"T"``,
  or ``"q"``, ``"keys"`` and ``"T"``) gets ``normalizer = N`` when the sides are marked with
  :func:`draws_weights`: they then take α (and ∂α/∂l) from :func:`weights_of` and
  :func:`jacobian_of`, which read that key (softmax when it is absent);
* any other instance fixes softmax inside the claim's formulas: the reading applies to
  softmax only, and is :class:`NotApplicable` under any other normalizer.

The instance also records ``"normalizer"``, so a counterexample says where it came from.
The exact methods and Monte Carlo are not carried over: they are statements about the
claim's own normalizer.

>>> import numpy as np
>>> out = reweigh({"weights": np.array([0.5, 0.25, 0.25]), "n": 1}, "sparsemax")
>>> out["normalizer"], out["weights"].round(3).tolist()
('sparsemax', [0.795, 0.102, 0.102])
>>> reweigh({"q": [1.0], "keys": [[1.0]], "T": 1.0}, "ssmax")
Traceback (most recent call last):
...
attnbounds.claims.normalized.NotApplicable: the reading's instances (keys q, keys, T) hold no 'weights' or ratio-form 'family' to draw through 'ssmax': its sides make their own weights from these keys, with the normalizer they were written for (to judge it under another, mark the sides with attnbounds.claims.normalized.draws_weights and make the weights with weights_of, their Jacobian with jacobian_of)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

__all__ = [
    "NotApplicable",
    "resolve",
    "lookup",
    "reweigh",
    "probe",
    "under",
    "is_default_softmax",
    "is_softmax",
    "draws_weights",
    "weights_of",
    "jacobian_of",
    "own_normalizer",
]

#: log of the smallest weight kept when logits are recovered as log(weights).
_LOG_FLOOR = -700.0


class NotApplicable(ValueError):
    """The reading cannot be posed under the requested normalizer (the message says why).

    ``instance`` is the reweighed instance that the reading's sides rejected, if any.
    """

    def __init__(self, message: str, instance: dict | None = None):
        super().__init__(message)
        self.instance = instance


#: Normalizers that readings have been posed under, by name, so that an instance naming an
#: unregistered plug-in (``{"family": "polynomial"}``) can still be evaluated.
_POSED: dict = {}


def resolve(normalizer):
    """The normalizer object for a name, a ``module:object`` spec, an entry point or an object."""
    from attnbounds.numerics import normalizers as nz

    N = nz.get(normalizer)
    _POSED[N.spec] = N  # by its spec: ssmax(s=2.0) and ssmax are two normalizers (an instance names the spec)
    return N


def lookup(name: str):
    """The normalizer an instance names: one a reading was posed under, else a registered one."""
    from attnbounds.numerics import normalizers as nz

    return _POSED[name] if name in _POSED else nz.get(name)


def is_default_softmax(N) -> bool:
    return N.name == "softmax" and float(N.params.get("T", 1.0)) == 1.0


def is_softmax(N) -> bool:
    """Whether ``N`` is softmax at its temperature: ratio form F = exp(l/T), independent of L
    (a hypothesis' ``admits`` for the claims stated for softmax).

    >>> from attnbounds.numerics import normalizers as nz
    >>> is_softmax(nz.get("softmax", T=2)), is_softmax(nz.get("ssmax")), is_softmax(nz.get("sparsemax"))
    (True, False, False)
    """
    import sympy as sp

    from attnbounds.theory.normalization import FAMILIES

    if N.sympy_F is None or N.depends_on_length:
        return False
    return sp.simplify(N.sympy_F - FAMILIES["softmax"].F) == 0


#: Attribute that marks a reading's ``sides`` as computing its weights through
#: :func:`weights_of` / :func:`jacobian_of` (so an instance may name its normalizer).
_DRAWS = "__attnbounds_draws_weights__"


def draws_weights(sides):
    """Mark ``sides`` as taking its attention weights (and Jacobian) from :func:`weights_of`
    and :func:`jacobian_of`: the reading can then be posed under any normalizer."""
    setattr(sides, _DRAWS, True)
    return sides


def _draws(reading) -> bool:
    return bool(getattr(reading.sides, _DRAWS, False))


def _instance_normalizer(instance):
    name = instance.get("normalizer") if isinstance(instance, dict) else None
    return None if name is None else lookup(name)


def weights_of(instance: dict, logits, T) -> np.ndarray:
    """α for ``logits`` at temperature ``T`` (a scalar or one per row): softmax, or the
    normalizer the instance names (``instance["normalizer"]``, set by :func:`reweigh`).

    >>> weights_of({}, np.array([0.0, 0.0]), 1.0).tolist()
    [0.5, 0.5]
    >>> weights_of({"normalizer": "sparsemax"}, np.array([0.0, 3.0]), 1.0).tolist()
    [0.0, 1.0]
    """
    from attnbounds.numerics.attention import softmax

    N = _instance_normalizer(instance)
    T = np.asarray(T, dtype=float)
    if N is None:
        return softmax(np.asarray(logits, dtype=float), T[..., None] if T.ndim else float(T))
    return N.weights(logits, T=T if T.ndim else float(T))


def jacobian_of(instance: dict, logits, T) -> np.ndarray:
    """∂α/∂l, shape ``(..., L, L)``, for the normalizer of :func:`weights_of`."""
    from attnbounds.numerics.normalizers import get

    N = _instance_normalizer(instance) or get("softmax")
    T = np.asarray(T, dtype=float)
    return N.jacobian(logits, T=T if T.ndim else float(T))


def reweigh(instance: dict, normalizer, *, draws: bool = False, shift=0.0) -> dict:
    """``instance`` (one instance or a batch) with its weights drawn through ``normalizer``;
    ``draws``: the reading's sides compute the weights with :func:`weights_of`. ``shift``: the
    constant c added to logits recovered as log(weights) (a number, or one per instance of a
    batch, shape (..., 1)); an instance's own ``"logits"`` are taken as they are."""
    N = resolve(normalizer)
    if not isinstance(instance, dict):
        raise TypeError(f"instance: expected a dict, got {type(instance).__name__}")
    try:
        c = np.asarray(shift, dtype=float)
    except (TypeError, ValueError):
        c = None
    if c is None or not np.all(np.isfinite(c)):
        raise ValueError(f"shift: expected a finite number or array of them, got {shift!r}")
    if "weights" in instance:
        if "logits" in instance:
            logits = np.asarray(instance["logits"], dtype=float)
        else:
            w = np.asarray(instance["weights"], dtype=float)
            with np.errstate(divide="ignore"):
                logits = np.maximum(np.log(w), _LOG_FLOOR) + c
        return {**instance, "logits": logits, "weights": N.weights(logits), "normalizer": N.spec}
    if "family" in instance:
        if N.sympy_F is None:
            raise NotApplicable(
                f"{N.name!r} has no ratio form F(l_i)/sum_j F(l_j), which the reading's ratio-family instances need"
            )
        return {**instance, "family": N.spec, "param": float(N.params[N.search_param or "T"]), "normalizer": N.spec}
    if is_default_softmax(N):
        return instance
    if draws:
        return {**instance, "normalizer": N.spec}
    keys = ", ".join(instance)
    if not set(instance) & _ATTENTION_KEYS:  # H1's head masks or fractions: no attention weights at all
        raise NotApplicable(
            f"the reading's instances (keys {keys}) hold no logits or weights: the reading is not about the "
            f"normalizer, so there is nothing to draw through {N.name!r}"
        )
    raise NotApplicable(
        f"the reading's instances (keys {keys}) hold no 'weights' or ratio-form 'family' to draw through {N.name!r}: "
        "its sides make their own weights from these keys, with the normalizer they were written for (to judge "
        "it under another, mark the sides with attnbounds.claims.normalized.draws_weights and make the weights "
        "with weights_of, their Jacobian with jacobian_of)"
    )


#: Half-width of the constant added to logits recovered as log(weights) (:func:`under`).
_SHIFT = 20.0


def _sweep_shift(rng: np.random.Generator, instance: dict):
    """One constant per instance of a swept batch (shape (..., 1)), for its logits recovered as
    log(weights): 0 for a quarter of them, else uniform in [-20, 20]."""
    w = instance.get("weights")
    if w is None or "logits" in instance:
        return 0.0
    shape = np.shape(w)[:-1] + (1,)
    c = rng.uniform(-_SHIFT, _SHIFT, size=shape)
    return np.where(rng.uniform(size=shape) < 0.25, 0.0, c)


#: Instance keys that carry attention logits, weights or their temperature (an instance with none of
#: them does not involve the normalizer).
_ATTENTION_KEYS = frozenset({"logits", "weights", "family", "T", "q", "keys"})


def probe(reading, normalizer) -> dict | None:
    """One instance of ``reading`` drawn through ``normalizer`` (None without a sweep).

    Raises :class:`NotApplicable` when the instance cannot be reweighed or when the
    reading's ``sides`` reject the normalizer's weights (e.g. rows that do not sum to 1).
    Instances outside the reading's own hypotheses (``reading.assume``) are not evaluated:
    the engine discards them too. Any other exception of ``sides`` is left to the engine's
    methods, which report it as an error in the row (it must not stop a whole run).
    """
    N = resolve(normalizer)
    if reading.sweep is None:
        return None
    instance = reweigh(_base(reading.sweep)(np.random.default_rng(0), 2), N, draws=_draws(reading))
    judged = instance
    if reading.assume is not None:
        from attnbounds.claims.base import subset_instances

        size = next((v.shape[0] for v in instance.values() if isinstance(v, np.ndarray) and v.ndim >= 1), 2)
        try:  # the hypotheses are computed from the weights too (e.g. R of the top-N set)
            keep = reading.inside(instance, size)
        except ValueError as exc:
            raise NotApplicable(f"the reading's hypotheses reject the weights of {N.name!r}: {exc}", instance) from None
        if not keep.any():
            return instance
        judged = subset_instances(instance, keep)
    try:
        reading.sides(judged)
    except ValueError as exc:
        raise NotApplicable(f"the reading's sides reject the weights of {N.name!r}: {exc}", instance) from None
    except Exception:  # noqa: BLE001 -- any other failure is a bug the engine's methods report as an error row
        return instance
    return instance


class _Naming:
    """A reading's ``strategy`` (``kind`` "strategy") or ``sweep`` (``kind`` "sweep") whose
    instances name the normalizer ``spec`` (:func:`own_normalizer`). A class, not a closure, so
    that two readings made alike compare equal and a sweep still pickles."""

    def __init__(self, base, spec: str, kind: str):
        self.base, self.spec, self.kind = base, spec, kind

    def _name(self, instance):
        # the reading's normalizer wins over one an instance names: its row says it (an instance that
        # named softmax in a reading about sparsemax was judged with softmax's weights)
        return {**instance, "normalizer": self.spec} if isinstance(instance, dict) else instance

    def __call__(self, *args):
        if self.kind == "strategy":
            return self.base(*args).map(self._name)
        return self._name(self.base(*args))

    def __eq__(self, other):
        return isinstance(other, _Naming) and (self.base, self.spec, self.kind) == (other.base, other.spec, other.kind)

    def __hash__(self):
        return hash((self.base, self.spec, self.kind))

    def __repr__(self):
        return f"{self.kind} {getattr(self.base, '__name__', self.base)!s} naming {self.spec!r}"


def _base(method):
    return method.base if isinstance(method, _Naming) else method


def own_normalizer(strategy, sweep, sides, spec):
    """The ``(strategy, sweep)`` of a reading about the normalizer ``spec``
    (``Reading(normalizer=...)``): when its sides are marked with :func:`draws_weights`,
    every instance names ``spec`` (in place of any normalizer it names), so that
    :func:`weights_of` and :func:`jacobian_of` compute that normalizer's weights (a trial: a
    reading about F = 1 + l² was judged with softmax's Jacobian, and its row said it was under
    F). Otherwise they are returned as they are: the sides compute their weights themselves,
    and the name labels the reading. :func:`under` starts from the reading's own ones again."""
    strategy, sweep = _base(strategy), _base(sweep)
    if spec is None or not getattr(sides, _DRAWS, False) or is_default_softmax(lookup(spec)):
        return strategy, sweep
    return (None if strategy is None else _Naming(strategy, spec, "strategy"),
            None if sweep is None else _Naming(sweep, spec, "sweep"))


def under(reading, normalizer):
    """``reading`` judged under ``normalizer`` (see the module docstring)."""
    N = resolve(normalizer)
    if reading.relation == "==":
        raise NotApplicable(
            "an attainment reading (==) builds its witness from the claim's own weights; drawing the "
            "weights through another normalizer would break the witness, not the claim"
        )
    if reading.strategy is None and reading.sweep is None:
        raise NotApplicable(
            f"the reading has only {', '.join(reading.methods) or 'no'} method(s), which are about the claim's own "
            "normalizer; there is no instance search to draw through another one"
        )
    probe(reading, N)  # raises NotApplicable before any work is done
    draws = _draws(reading)

    strategy = sweep = None
    shifts = not is_softmax(N)  # softmax ignores the constant: its instances stay as they were
    if reading.strategy is not None:
        base_strategy = _base(reading.strategy)  # not the reading's own normalizer: N's

        def strategy():
            from hypothesis import strategies as st

            if not shifts:
                return base_strategy().map(lambda inst: reweigh(inst, N, draws=draws))
            c = st.one_of(st.just(0.0), st.floats(-_SHIFT, _SHIFT, allow_nan=False))
            return st.tuples(base_strategy(), c).map(lambda ic: reweigh(ic[0], N, draws=draws, shift=ic[1]))

    if reading.sweep is not None:
        base_sweep = _base(reading.sweep)

        def sweep(rng: np.random.Generator, count: int) -> dict[str, Any]:
            inst = base_sweep(rng, count)
            return reweigh(inst, N, draws=draws, shift=_sweep_shift(rng, inst) if shifts else 0.0)

    return replace(
        reading,
        symbolic=None,
        certify=None,
        bind=None,
        locate=None,
        domain=None,
        montecarlo=None,
        strategy=strategy,
        sweep=sweep,
        normalizer=N.spec,
    )
