"""Public Hypothesis strategies for attention instances.

The API follows Hypothesis' own style guide: every argument is validated when the
strategy is built and a bad one raises :class:`hypothesis.errors.InvalidArgument` naming it;
defaults are sensible; sizes are ``min_size``/``max_size`` and bounds ``min_value``/``max_value``.

Arrays built element by element by Hypothesis stay small (at most a few dozen entries) so
that shrinking works well; for volume, draw a seed with :func:`seeds` and build the array with
numpy (:func:`rng_arrays`, :mod:`attnbounds.numerics.sampling`).

=============================  ===================================================================
strategy                       draws
=============================  ===================================================================
:func:`logits`                 1-D float64 logits, bounded, with ties and extreme values
:func:`temperatures`           a float temperature spread over decades (log-uniform)
:func:`simplex_points`         1-D probability vectors: one-hot, uniform, two-point or random
:func:`embeddings`             ``(n_tokens, dim)`` embeddings: gaussian, sphere, antipodal, collinear, box
:func:`attention_configs`      a dict ``{"logits", "T", "weights", "x", "n"}`` of matching shapes
:func:`seeds`                  an integer seed for :func:`numpy.random.default_rng`
:func:`rng_arrays`             a numpy array of a given shape built from a drawn seed
:func:`normalizer_families`    a ratio-form :class:`~attnbounds.numerics.normalizers.Normalizer`
=============================  ===================================================================

>>> from hypothesis import given, settings
>>> @settings(max_examples=20, deadline=None, database=None)
... @given(logits(max_size=4))
... def test(z):
...     assert z.ndim == 1 and 1 <= z.size <= 4
>>> test()
>>> logits(min_size=0)
Traceback (most recent call last):
...
hypothesis.errors.InvalidArgument: min_size: must be an integer >= 1, got 0
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import SearchStrategy

from attnbounds.numerics.attention import softmax
from attnbounds.numerics import normalizers as _nz
from attnbounds.numerics.sampling import gaussian_points, sphere_points

__all__ = [
    "SIMPLEX_KINDS",
    "EMBEDDING_KINDS",
    "NORMALIZER_FAMILIES",
    "PARAM_CHOICES",
    "logits",
    "temperatures",
    "simplex_points",
    "embeddings",
    "attention_configs",
    "seeds",
    "rng_arrays",
    "normalizer_families",
]

#: Kinds accepted by :func:`simplex_points`.
SIMPLEX_KINDS: tuple[str, ...] = ("one_hot", "uniform", "two_point", "random")
#: Kinds accepted by :func:`embeddings`.
EMBEDDING_KINDS: tuple[str, ...] = ("gaussian", "sphere", "antipodal", "collinear", "box")
#: The built-in ratio-form families of :func:`normalizer_families`: the registry's normalizers
#: with role ``"family"`` (:func:`attnbounds.numerics.normalizers.names`).
NORMALIZER_FAMILIES: tuple[str, ...] = _nz.names(role="family")

#: Above this many entries Hypothesis-built arrays shrink poorly; use a seed instead.
MAX_DRAWN_ENTRIES = 64

_SEED_MAX = 2**32 - 1


# ---------------------------------------------------------------------------- validation


def _check_int(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidArgument(f"{name}: must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise InvalidArgument(f"{name}: must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_size_range(min_size, max_size, minimum: int = 1, min_name="min_size", max_name="max_size"):
    min_size = _check_int(min_size, min_name, minimum)
    max_size = _check_int(max_size, max_name, minimum)
    if min_size > max_size:
        raise InvalidArgument(f"{max_name}: must be >= {min_name} = {min_size}, got {max_size}")
    return min_size, max_size


def _check_real(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidArgument(f"{name}: must be a real number, got {value!r}")
    if not math.isfinite(value):
        raise InvalidArgument(f"{name}: must be finite, got {value!r}")
    return float(value)


def _check_value_range(min_value, max_value, min_name="min_value", max_name="max_value", positive=False):
    lo = _check_real(min_value, min_name)
    hi = _check_real(max_value, max_name)
    if positive and lo <= 0:
        raise InvalidArgument(f"{min_name}: must be > 0, got {min_value!r}")
    if lo > hi:
        raise InvalidArgument(f"{max_name}: must be >= {min_name} = {min_value!r}, got {max_value!r}")
    return lo, hi


def _check_kinds(kinds, valid: tuple[str, ...], name: str = "kinds") -> tuple[str, ...]:
    if isinstance(kinds, str):
        kinds = (kinds,)
    try:
        kinds = tuple(kinds)
    except TypeError:
        raise InvalidArgument(f"{name}: expected a sequence of names from {valid}, got {kinds!r}") from None
    if not kinds:
        raise InvalidArgument(f"{name}: must not be empty; choose from {valid}")
    bad = [k for k in kinds if k not in valid]
    if bad:
        raise InvalidArgument(f"{name}: unknown {bad}; choose from {valid}")
    return kinds


def _int_or_strategy(value, name: str, minimum: int = 1):
    if isinstance(value, SearchStrategy):
        return value
    return st.just(_check_int(value, name, minimum))


def _draw_checked_int(draw, strategy, name: str, minimum: int = 1) -> int:
    value = draw(strategy)
    return _check_int(value, f"{name} (drawn)", minimum)


# ---------------------------------------------------------------------------- strategies


def _finite_floats(lo: float, hi: float):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@st.composite
def _logits(draw, min_size, max_size, lo, hi, allow_ties):
    L = draw(st.integers(min_size, max_size))
    elements = _finite_floats(lo, hi)
    anchors = sorted({lo, hi, min(max(0.0, lo), hi)})
    modes = ["free", "ties", "extremes"] if allow_ties else ["free"]
    mode = draw(st.sampled_from(modes))
    if mode == "free":
        values = draw(st.lists(elements, min_size=L, max_size=L, unique=not allow_ties))
    elif mode == "ties":
        # A small pool of values, so that equal logits (ties) are common.
        pool = draw(st.lists(elements, min_size=1, max_size=3))
        values = draw(st.lists(st.sampled_from(pool), min_size=L, max_size=L))
    else:
        values = draw(st.lists(st.one_of(st.sampled_from(anchors), elements), min_size=L, max_size=L))
    return np.array(values, dtype=np.float64)


def logits(
    min_size: int = 1,
    max_size: int = 8,
    min_value: float = -10.0,
    max_value: float = 10.0,
    allow_ties: bool = True,
) -> SearchStrategy[np.ndarray]:
    """1-D float64 logits of length in ``[min_size, max_size]`` with entries in ``[min_value, max_value]``.

    With ``allow_ties`` (default) a third of the draws reuse a pool of at most three values
    (ties) and a third mix in the extremes ``min_value``, ``max_value`` and 0. With
    ``allow_ties=False`` all entries are distinct, which needs ``min_value < max_value``
    unless ``max_size == 1``.
    """
    min_size, max_size = _check_size_range(min_size, max_size)
    if max_size > MAX_DRAWN_ENTRIES:
        raise InvalidArgument(f"max_size: at most {MAX_DRAWN_ENTRIES} (draw a seed for larger arrays), got {max_size}")
    lo, hi = _check_value_range(min_value, max_value)
    if not isinstance(allow_ties, bool):
        raise InvalidArgument(f"allow_ties: must be a bool, got {allow_ties!r}")
    if not allow_ties and lo == hi and max_size > 1:  # only length 1 could be drawn, silently
        raise InvalidArgument(f"allow_ties: False needs min_value < max_value when max_size > 1 (both are {lo})")
    return _logits(min_size, max_size, lo, hi, allow_ties)


def temperatures(min_value: float = 1e-3, max_value: float = 1e3) -> SearchStrategy[float]:
    """A temperature T in ``[min_value, max_value]`` (``min_value > 0``), spread over decades.

    T = 10^u with u uniform in [log10 min_value, log10 max_value], so every decade is about
    equally likely; the endpoints and 1 (when in range) are drawn explicitly too.

    A failing example shrinks toward T = 1, the neutral temperature (else toward the end
    nearer 1 in decades), not toward the smallest T: the special values are listed nearest
    1 first, as Hypothesis shrinks a ``sampled_from`` toward its first element, and u shrinks
    toward 0.
    """
    lo, hi = _check_value_range(min_value, max_value, positive=True)
    specials = sorted({lo, hi} | ({1.0} if lo <= 1.0 <= hi else set()), key=lambda v: (abs(math.log10(v)), v))
    if lo == hi:
        return st.just(lo)
    exponents = _finite_floats(math.log10(lo), math.log10(hi))
    spread = exponents.map(lambda u: min(max(10.0**u, lo), hi))
    return st.one_of(st.sampled_from(specials), spread)


@st.composite
def _simplex_points(draw, min_size, max_size, kinds):
    L = draw(st.integers(min_size, max_size))
    kind = draw(st.sampled_from(kinds))
    w = np.zeros(L)
    if kind == "uniform":
        return np.full(L, 1.0 / L)
    if kind == "one_hot":
        w[draw(st.integers(0, L - 1))] = 1.0
        return w
    if kind == "two_point":
        i = draw(st.integers(0, L - 1))
        j = draw(st.integers(0, L - 1).filter(lambda k: k != i)) if L > 1 else i
        p = draw(_finite_floats(0.0, 1.0))
        w[i] += p
        w[j] += 1.0 - p
        return w
    # random: non-negative masses, normalized; an all-zero draw becomes one-hot at 0.
    v = np.array(draw(st.lists(_finite_floats(0.0, 1.0), min_size=L, max_size=L)))
    if v.sum() == 0:
        v[0] = 1.0
    return v / v.sum()


def simplex_points(
    min_size: int = 1,
    max_size: int = 8,
    kinds=SIMPLEX_KINDS,
) -> SearchStrategy[np.ndarray]:
    """Probability vectors (non-negative, summing to 1 up to rounding) of length in ``[min_size, max_size]``.

    ``kinds`` is any non-empty subset of :data:`SIMPLEX_KINDS`: ``"one_hot"`` (a vertex),
    ``"uniform"`` (1/L each), ``"two_point"`` (p and 1 − p on two distinct indices) and
    ``"random"`` (normalized non-negative floats, zeros included).
    """
    min_size, max_size = _check_size_range(min_size, max_size)
    if max_size > MAX_DRAWN_ENTRIES:
        raise InvalidArgument(f"max_size: at most {MAX_DRAWN_ENTRIES} (draw a seed for larger arrays), got {max_size}")
    kinds = _check_kinds(kinds, SIMPLEX_KINDS)
    return _simplex_points(min_size, max_size, kinds)


def _unit_vector(draw, dim: int) -> np.ndarray:
    u = np.array(draw(st.lists(_finite_floats(-1.0, 1.0), min_size=dim, max_size=dim)))
    norm = np.linalg.norm(u)
    if not norm > 1e-6:
        u = np.zeros(dim)
        u[0] = 1.0
        norm = 1.0
    return u / norm


@st.composite
def _embeddings(draw, n_tokens, dim, kind, radius):
    n = _draw_checked_int(draw, n_tokens, "n_tokens")
    d = _draw_checked_int(draw, dim, "dim")
    if kind != "gaussian" and n * d > MAX_DRAWN_ENTRIES:
        # Too many entries to draw one by one: build with numpy from a drawn seed.
        seed = draw(seeds())
        if kind == "sphere":
            return sphere_points(seed, 1, n, d, radius)[0]
        u = sphere_points(seed, 1, 1, d)[0, 0]
        rng = np.random.default_rng(seed + 1 if seed < _SEED_MAX else 0)
        if kind == "antipodal":
            return radius * np.where(np.arange(n) % 2 == 0, 1.0, -1.0)[:, None] * u
        if kind == "collinear":
            return radius * rng.uniform(-1.0, 1.0, size=(n, 1)) * u
        return radius * rng.uniform(-1.0, 1.0, size=(n, d))
    if kind == "gaussian":
        return gaussian_points(draw(seeds()), 1, n, d, radius)[0]
    if kind == "sphere":
        return radius * np.stack([_unit_vector(draw, d) for _ in range(n)])
    if kind == "antipodal":
        # x_i = ±radius·u, alternating signs.
        u = _unit_vector(draw, d)
        signs = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        return radius * signs[:, None] * u
    if kind == "collinear":
        u = _unit_vector(draw, d)
        c = np.array(draw(st.lists(_finite_floats(-1.0, 1.0), min_size=n, max_size=n)))
        return radius * c[:, None] * u
    # box: entries drawn directly in [−radius, radius]
    vals = draw(st.lists(_finite_floats(-radius, radius), min_size=n * d, max_size=n * d))
    return np.array(vals, dtype=np.float64).reshape(n, d)


def embeddings(n_tokens, dim, kind: str = "gaussian", radius: float = 1.0) -> SearchStrategy[np.ndarray]:
    """Embeddings of shape ``(n_tokens, dim)``; ``n_tokens`` and ``dim`` are ints >= 1 or strategies.

    ``kind``:

    * ``"gaussian"`` -- i.i.d. N(0, radius²) entries, built by numpy from a drawn seed;
    * ``"sphere"`` -- every row has norm ``radius`` (directions drawn by Hypothesis);
    * ``"antipodal"`` -- rows alternate ``+radius·u`` and ``−radius·u`` for one unit u;
    * ``"collinear"`` -- rows ``c_i·radius·u`` with ``c_i ∈ [−1, 1]``;
    * ``"box"`` -- entries drawn by Hypothesis in ``[−radius, radius]`` (best shrinking).

    Above :data:`MAX_DRAWN_ENTRIES` entries every kind is built by numpy from a drawn seed.
    """
    n_tokens = _int_or_strategy(n_tokens, "n_tokens")
    dim = _int_or_strategy(dim, "dim")
    if kind not in EMBEDDING_KINDS:
        raise InvalidArgument(f"kind: must be one of {EMBEDDING_KINDS}, got {kind!r}")
    radius = _check_real(radius, "radius")
    if radius <= 0:
        raise InvalidArgument(f"radius: must be > 0, got {radius!r}")
    return _embeddings(n_tokens, dim, kind, radius)


@st.composite
def _attention_configs(draw, min_size, max_size, min_dim, max_dim, lo, hi, t_lo, t_hi, kinds, radius, normalizer=None):
    z = draw(logits(min_size=min_size, max_size=max_size, min_value=lo, max_value=hi))
    L = z.size
    T = draw(temperatures(t_lo, t_hi))
    d = draw(st.integers(min_dim, max_dim))
    kind = draw(st.sampled_from(kinds))
    x = draw(embeddings(L, d, kind=kind, radius=radius))
    n = draw(st.integers(1, L - 1))
    weights = softmax(z, T) if normalizer is None else normalizer.weights(z, T=T)
    return {"logits": z, "T": T, "weights": weights, "x": x, "n": n}


def attention_configs(
    min_size: int = 2,
    max_size: int = 8,
    min_dim: int = 1,
    max_dim: int = 4,
    min_value: float = -10.0,
    max_value: float = 10.0,
    min_temperature: float = 1e-2,
    max_temperature: float = 1e2,
    kinds=EMBEDDING_KINDS,
    radius: float = 1.0,
    normalizer=None,
) -> SearchStrategy[dict]:
    """A consistent attention instance ``{"logits", "T", "weights", "x", "n"}``.

    ``logits`` has length L in ``[min_size, max_size]`` (``min_size >= 2``), ``T`` lies in
    ``[min_temperature, max_temperature]``, ``weights = softmax(logits, T)`` (or, with
    ``normalizer``, a registered name, spec or
    :class:`~attnbounds.numerics.normalizers.Normalizer`, that normalizer's weights of
    ``logits`` at ``T``), ``x`` has shape ``(L, d)`` with d in ``[min_dim, max_dim]`` and an
    embedding kind from ``kinds``, and ``n`` is in ``[1, L − 1]``.
    """
    min_size, max_size = _check_size_range(min_size, max_size, minimum=2)
    if max_size > MAX_DRAWN_ENTRIES:
        raise InvalidArgument(f"max_size: at most {MAX_DRAWN_ENTRIES}, got {max_size}")
    min_dim, max_dim = _check_size_range(min_dim, max_dim, minimum=1, min_name="min_dim", max_name="max_dim")
    lo, hi = _check_value_range(min_value, max_value)
    t_lo, t_hi = _check_value_range(
        min_temperature, max_temperature, "min_temperature", "max_temperature", positive=True
    )
    kinds = _check_kinds(kinds, EMBEDDING_KINDS)
    radius = _check_real(radius, "radius")
    if radius <= 0:
        raise InvalidArgument(f"radius: must be > 0, got {radius!r}")
    if normalizer is not None:
        try:
            normalizer = _nz.get(normalizer)
        except (ValueError, TypeError, LookupError) as exc:
            raise InvalidArgument(f"normalizer: {exc}") from None
    return _attention_configs(min_size, max_size, min_dim, max_dim, lo, hi, t_lo, t_hi, kinds, radius, normalizer)


def seeds() -> SearchStrategy[int]:
    """An integer seed in ``[0, 2³² − 1]`` for :func:`numpy.random.default_rng`; shrinks to 0."""
    return st.integers(0, _SEED_MAX)


_RNG_DISTRIBUTIONS = ("normal", "uniform", "sphere", "simplex")


def rng_arrays(shape, distribution: str = "normal", scale: float = 1.0) -> SearchStrategy[np.ndarray]:
    """A float64 array of the given ``shape`` built by numpy from a drawn seed (for volume).

    ``distribution``: ``"normal"`` (N(0, scale²)), ``"uniform"`` (U(−scale, scale)),
    ``"sphere"`` (rows along the last axis have norm ``scale``) or ``"simplex"`` (rows along
    the last axis are flat-Dirichlet probability vectors; ``scale`` is ignored).
    """
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        shape = tuple(shape)
    except TypeError:
        raise InvalidArgument(f"shape: expected an int or a tuple of ints, got {shape!r}") from None
    if not shape:
        raise InvalidArgument("shape: must have at least one dimension")
    shape = tuple(_check_int(s, "shape", 1) for s in shape)
    if distribution not in _RNG_DISTRIBUTIONS:
        raise InvalidArgument(f"distribution: must be one of {_RNG_DISTRIBUTIONS}, got {distribution!r}")
    scale = _check_real(scale, "scale")
    if scale <= 0:
        raise InvalidArgument(f"scale: must be > 0, got {scale!r}")

    def build(seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        if distribution == "normal":
            return scale * rng.standard_normal(shape)
        if distribution == "uniform":
            return rng.uniform(-scale, scale, size=shape)
        if distribution == "sphere":
            z = rng.standard_normal(shape)
            norm = np.linalg.norm(z, axis=-1, keepdims=True)
            return scale * z / np.where(norm > 0, norm, 1.0)
        g = rng.standard_gamma(1.0, size=shape)
        g[..., 0] += g.sum(axis=-1) == 0  # an all-zero row becomes one-hot at index 0
        return g / g.sum(axis=-1, keepdims=True)

    return seeds().map(build)


#: Values drawn for a family's searched parameter (:attr:`Normalizer.search_param
#: <attnbounds.numerics.normalizers.Normalizer.search_param>`): exact binary fractions.
PARAM_CHOICES: dict[str, tuple[float, ...]] = {
    "T": (0.25, 0.5, 1.0, 2.0, 4.0),
    "p": (0.5, 1.0, 1.5, 2.0, 3.0),
}


def normalizer_families(names=None) -> SearchStrategy:
    """A ratio-form :class:`~attnbounds.numerics.normalizers.Normalizer` from ``names``
    (default: every registered normalizer with role ``"family"``; an entry may also be a
    ratio-form normalizer object of your own, such as one from
    :func:`~attnbounds.numerics.normalizers.from_sympy`).

    Each has ``name``, ``expr`` (SymPy F, in the symbol ``l``), ``F`` and ``dF`` (numpy,
    elementwise), ``weights`` and ``jacobian``. A family's searched parameter is drawn from
    :data:`PARAM_CHOICES`: T ∈ {1/4, 1/2, 1, 2, 4} for ``softmax`` and p ∈ {1/2, 1, 3/2, 2, 3}
    for ``even_power`` (where its default is among these); any other searched parameter (a
    plug-in's ``beta``, or a ``p`` of default 10) from its default times {1/4, 1/2, 1, 2, 4}
    (the default must then be > 0). A failing example
    shrinks toward the value nearest the default (in ratio) and shows the drawn normalizer as
    ``Normalizer('even_power', p=0.5, T=1.0)``: its name and parameters.
    """
    valid = _nz.names(role="family")
    if names is None:
        names = valid
    if isinstance(names, (str, _nz.Normalizer)):
        names = [names]
    try:
        names = list(names)
    except TypeError:
        raise InvalidArgument(f"names: expected names from {valid} or Normalizer objects, got {names!r}") from None
    own = [N for N in names if isinstance(N, _nz.Normalizer)]
    for N in own:
        if N.sympy_F is None:
            raise InvalidArgument(f"names: normalizer {N.name!r} has no ratio form F (build it with from_sympy)")
    named = [n for n in names if not isinstance(n, _nz.Normalizer)]
    other = [n for n in named if isinstance(n, str) and n not in valid and n in _nz.names()]
    if other:  # a registered normalizer with no ratio form (sparsemax) is not "unknown"
        raise InvalidArgument(f"names: {other[0]!r} is a registered normalizer but not a ratio-form family "
                              f"F(l_i)/sum_j F(l_j); families: {valid}, or a Normalizer object of your own "
                              "from normalizers.from_sympy")
    if named or not own:
        named = _check_kinds(named, valid, "names")
    options = []
    for name in [*named, *own]:
        N = name if isinstance(name, _nz.Normalizer) else _nz.get(name)
        key = N.search_param
        if key is not None:
            # sampled, not mapped: a failing example then shows the normalizer's repr, which names
            # the family and the parameter (Normalizer('even_power', p=0.5, T=1.0)), not the lambda
            options.append(st.sampled_from([N.with_params(**{key: v}) for v in _search_values(N, key)]))
        else:
            options.append(st.just(N))
    return st.one_of(options)


def _search_values(N, key: str) -> list:
    """The values of ``N``'s searched parameter ``key`` to draw, nearest its default first (in
    ratio), so that a failing example shrinks toward the default."""
    default = N.params[key]
    if key in PARAM_CHOICES and default in PARAM_CHOICES[key]:  # a plug-in's p = 10 is not even_power's
        values = PARAM_CHOICES[key]
    else:
        if isinstance(default, bool) or not isinstance(default, (int, float)) or not default > 0:
            raise InvalidArgument(f"search_param: {key!r} of normalizer {N.name!r} has default {default!r}; a searched "
                                  "parameter other than T or p is drawn as its default times 1/4 … 4, so the default "
                                  "must be a number > 0")
        values = tuple(float(default) * f for f in (0.25, 0.5, 1.0, 2.0, 4.0))
    base = float(default) if isinstance(default, (int, float)) and default > 0 else 1.0
    return sorted(values, key=lambda v: (abs(math.log(v / base)), v))
