"""``reproduce --protocol paper``: Algorithms 1–5 of the paper's Appendix B, at every query position.

Every metric is computed at **every query position t** of a window and averaged over t per
head (``PROTOCOL.md``). One window is processed at a time by :func:`paper_window_tables`:

* a causal model gets ONE forward pass over the longest window with every query row kept
  (logits only, (Y, H, L, L) float32). With ``rows="prefix"`` the rows of the first L
  tokens are exactly those of a window of length L, so every L comes from the same
  per-row values: the mean for L is the mean over the rows t ≤ L;
* with ``rows="full"`` the masked keys of a row take part with weight 0, so a row's
  metric depends on L and each L is computed over its own (L, L) block;
* a bidirectional model (MiniLM) sees all keys at every position: one forward per L.

Rows with t ≤ N keys (no token left out) are skipped. The metrics (kernels in
:mod:`attnbounds.empirical.experiments`; every N of a row in one compiled pass,
:func:`attnbounds.empirical.fused.row_metrics`):

* **E1/E2** per (head, L, N): the true d̃, the T1(i) bound and the T1(ii) expectation,
  each averaged over t. The bound and the expectation are the right sides of the claim
  readings ``T1i:reconstructed`` and ``T1ii:reconstructed``: the vectorized kernels
  compute their ingredients, and :func:`claim_forms` checks on real rows of the run,
  against the readings' own ``sides``, which form the claims use (so a re-anchored claim
  is followed, or the run stops with an error naming the claim).
* **E3** per L: two samples of per-head means (d̃ against the expectation), one
  two-sample KS test per N; N_crit is the first N whose test does not reject at level α.
  The N grid has step max(1, ⌊L/100⌋) (N_crit/L resolved to 1% of L). It is searched by
  a geometric scan (10 grid points, :func:`ks_scan_points`; the first that does not reject
  wins), then bisection on the grid between that point and the last rejecting one. This
  assumes one change of decision inside that bracket; ``ks_scan.csv`` records every N
  tested. The scan's rows are computed in the forward passes themselves, with E1/E2/E4's
  (the N of a shorter L on its rows only), so the search starts with them. The bisection
  computes the rows of the midpoints its next three steps may visit in one pass over the
  kept logits (one softmax and one sort per row serve them), and tests only the ones it
  visits: the same N, statistics and N_crit as step by step (tested).
* **E4** per (head, N): r = min over non-selected i of ‖s − α_i x_i‖, N_s counted strictly
  inside, N_s/N averaged over t; the embeddings are on the unit sphere. Theorem 2's sides
  read ξ_j as σ_j = (Σ_{k∈I_N∖j} α_k²)^{1/2} (its value on a high-dimensional sphere).
* **E5** per (head, T, ε): a random unit direction per (head, t) from ``--seed``;
  g = ‖softmax((l + εv)/T) − softmax(l/T)‖/ε averaged over t at L = ``e5_length``.
"""

from __future__ import annotations

import math
import time

import numpy as np
from scipy import special  # already imported by experiments (not scipy.stats: about a second)

from attnbounds.empirical import experiments as ex

__all__ = [
    "PROTOCOLS",
    "ROWS",
    "PaperSettings",
    "ks_grid",
    "claim_forms",
    "paper_window_tables",
    "HEADS_COLUMNS",
]

PROTOCOLS = ("paper", "last-query")
ROWS = ("prefix", "full")
HEADS_COLUMNS = ["experiment", "layer", "head", "window", "L", "N", "T", "epsilon", "metric", "value"]

# experiment ids of the random generators (seeded_rng(seed, window, L, id, layer))
_RNG_E5 = 5
_BLOCK = 128  # query rows per block (a causal prefix block takes the keys up to its last row)
_KS_AHEAD = 3  # E3's bisection computes the rows of its next 3 steps' possible midpoints (7 N) in one pass
_KS_GUESS = 3  # its first pass: the midpoints on the paths to the grid positions within 3 of the guessed
# crossing (None: the next _KS_AHEAD steps' instead)
_KS_GUESS_MAX = 14  # at most this many N in that pass (else the next _KS_AHEAD steps'): a pass costs about nine N


class PaperSettings:
    """The paper protocol's lists (Appendix B; see ``PROTOCOL.md``)."""

    e1_n = (5,)  # Alg. 1: N = 5, every L
    e2_n = (1, 5, 10, 20, 100)  # Alg. 2: at the largest L
    e4_n = (1, 2, 4, 8, 16, 32, 64)  # Alg. 4 (the listing gives no list; powers of 2 around the N ≈ 16 knee)
    temperatures = tuple(float(t) for t in np.logspace(-3, 1, 13))  # Alg. 5: 1e-3 … 10, 3 per decade
    epsilons = (1e-3, 1e-1, 10.0)  # Alg. 5


#: The parts of a paper run's metric seconds (``timing["metric_parts"]``, plus "other"): E1/E2/E4
#: and E3's scan points in the layers' rows, E3's search over the kept logits, E5, H1's probe, and
#: the one check of the claims' forms (which also loads the compiled kernels from numba's cache).
METRIC_PARTS = ("rows", "e3_search", "e5", "h1", "claim_forms")


def ks_grid(L: int) -> np.ndarray:
    """E3's N grid for window length L: 1, 1 + h, 1 + 2h, … < L with h = max(1, ⌊L/100⌋).

    >>> ks_grid(8).tolist()
    [1, 2, 3, 4, 5, 6, 7]
    >>> ks_grid(1024)[:4].tolist(), int(ks_grid(1024)[-1])
    ([1, 11, 21, 31], 1021)
    """
    if L < 2:
        raise ValueError(f"L: must be >= 2, got {L}")
    return np.arange(1, L, max(1, L // 100), dtype=np.int64)


def _scan_positions(size: int) -> np.ndarray:
    """Positions in an N grid of ``size`` points of E3's geometric scan (10 points, first and last included)."""
    return np.unique(np.rint(np.geomspace(1, size, min(size, 10))).astype(int) - 1)


def ks_scan_points(L: int) -> list:
    """The N of E3's geometric scan at window length L (10 points of :func:`ks_grid`): the main
    pass computes their rows, so the search starts with them in hand.

    >>> ks_scan_points(1024)
    [1, 11, 21, 41, 71, 121, 211, 361, 611, 1021]
    """
    grid = ks_grid(L)
    return [int(grid[i]) for i in _scan_positions(grid.size)]


# --- the claims' forms ----------------------------------------------------------------


def _t1_bound_candidates(terms: dict, t, n: int) -> dict:
    """Candidate forms of the T1(i) right side from the kernel's ingredients (rows of length t).

    The formulas are the claim module's own (:func:`attnbounds.claims.theorem1_fixed.bound`
    with the paper's d_1, and ``bound_d1_norm`` with the old reading); only the ingredients
    come from the kernel."""
    from attnbounds.claims import theorem1_fixed as t1i

    out = {}
    common = {"alpha_N": terms["mass"], "R": terms["R"], "L": t, "n": n}
    if "d1_norm" in terms:
        out["d1_norm"] = t1i.bound_d1_norm({**common, "d_1_norm": terms["d1_norm"]})
    if "d1_pair" in terms:
        out["d1_pair"] = t1i.bound({**common, "d_1": terms["d1_pair"]})
    return out


_FORM_HEADS = 4  # heads of each sampled row on which the claims' forms are checked


def _sample_instances(w, x, visible, n, rows, first=None):
    """Per-row instances (batched over the first heads) for the claim readings: the keys that take
    part (with ``first``, only the first that many of them, their weights renormalized)."""
    h = slice(0, _FORM_HEADS)
    for r in rows:
        keys = (np.arange(w.shape[-1]) if visible is None else np.flatnonzero(visible[r]))[:first]
        yield r, {"weights": w[h, r, keys] / w[h, r, keys].sum(-1, keepdims=True), "x": x[h][:, keys], "n": int(n)}


def claim_forms(w, x, visible, ns, terms: dict | None, order) -> dict:
    """Which form of each claim's right side this run must use, checked on rows of the run.

    For T1(i) the candidates are d_1 = max_{i∉I_N}‖x_i‖ (``d1_norm``) and
    d_1 = max_{i∉I_N, j∈I_N}‖x_i − x_j‖ (``d1_pair``); the reading ``T1i:reconstructed``'s
    ``sides`` is evaluated on four rows per N (short rows, at most 64 keys, where the block
    has them) and the candidate that equals its right side (and whose d̃ equals its left
    side) is chosen. For T1(ii), ``T1ii:reconstructed``'s right side is compared with the
    kernel's main term on short rows (its left side is an exact expectation over subsets), or,
    where no row has at most ten keys (an encoder), on the first ten keys of two sampled rows.
    ``terms`` are :func:`~attnbounds.empirical.experiments.position_metrics` of the block
    with ``what=("terms", "main")``; None computes them on the sampled rows only. Raises
    ``RuntimeError`` naming the claim when no form matches: the kernel must then follow the claim.
    """
    from attnbounds import claims

    _, t1 = claims.reading("T1i:reconstructed")
    _, t2 = claims.reading("T1ii:reconstructed")
    R = w.shape[1]
    tcount = np.full(R, w.shape[-1]) if visible is None else np.asarray(visible).sum(-1)
    chosen = {}
    for a, n in enumerate(ns):
        valid = np.flatnonzero(tcount > n)
        if valid.size == 0:
            continue
        short = valid[tcount[valid] <= min(64, n + 16)]  # the right side's pairwise distances cost t² per head
        pool = short if short.size else valid
        rows = np.unique(np.concatenate([pool[np.linspace(0, pool.size - 1, min(4, pool.size)).astype(int)],
                                         valid[tcount[valid] <= _T1II_KEYS][:2]]))
        if terms is None:  # the kernel on the sampled rows only
            local_terms = ex.position_metrics(w[:_FORM_HEADS, rows], x[:_FORM_HEADS], [n],
                                              visible=None if visible is None else visible[rows],
                                              order=order[:_FORM_HEADS, rows], what=("terms", "main"))
            at = {int(r): i for i, r in enumerate(rows)}

            def get(k, r):
                return local_terms[k][:, 0, at[int(r)]]
        else:
            def get(k, r):
                return terms[k][:_FORM_HEADS, a, r]
        cand = {}
        for r, inst in _sample_instances(w, x, visible, n, rows[:4] if rows.size > 4 else rows):
            sides = t1.sides(inst)
            local = {k: get(k, r) for k in ("mass", "R", "d1_norm", "d_tilde")}
            local["d1_pair"] = ex.pair_distance_max(x[:_FORM_HEADS], order[:_FORM_HEADS, r:r + 1], n,
                                                    None if visible is None else visible[r:r + 1])[:, 0]
            if not np.allclose(local["d_tilde"], np.asarray(sides.lhs, dtype=float), rtol=1e-7, atol=1e-9):
                raise RuntimeError("claim T1i: its left side no longer equals the kernel's d̃; update experiments.position_metrics")
            for k, v in _t1_bound_candidates(local, tcount[r], n).items():
                ok = np.allclose(v, np.asarray(sides.rhs, dtype=float), rtol=1e-7, atol=1e-9)
                cand[k] = cand.get(k, True) and ok
        good = [k for k, ok in cand.items() if ok]
        if not good:
            raise RuntimeError("claim T1i: no kernel form equals the right side of T1i:reconstructed; "
                               "add the new d_1 to experiments.position_metrics")
        chosen.setdefault("T1i", good[0])
        if chosen["T1i"] not in good:
            raise RuntimeError("claim T1i: the matching form differs between N; check T1i:reconstructed")
        few = [r for r in rows if tcount[r] <= _T1II_KEYS][:2]
        for r, inst in _sample_instances(w, x, visible, n, few):
            _check_t1ii(t2, inst, get("main", r))
            chosen["T1ii"] = "main"
        if not few and n < _T1II_KEYS:  # no row this short (an encoder, or --rows full): the first keys of two
            # sampled rows, their weights renormalized, are an instance of the claim the kernel is run on
            for _, inst in _sample_instances(w, x, visible, n, rows[:2], first=_T1II_KEYS):
                main = ex.position_metrics(inst["weights"][:, None, :], inst["x"], [n], what=("main",))["main"]
                _check_t1ii(t2, inst, np.asarray(main)[:, 0, 0])
                chosen["T1ii"] = "main"
    return chosen


_T1II_KEYS = 10  # T1(ii)'s left side is an exact expectation over the subsets of a row's keys: rows of at most
# this many keys


def _check_t1ii(reading, inst, main) -> None:
    """The kernel's main term on an instance equals the right side of the reading ``T1ii:reconstructed``."""
    rhs = np.asarray(reading.sides(inst).rhs, dtype=float)
    if not np.allclose(main, rhs, rtol=1e-7, atol=1e-9):
        raise RuntimeError("claim T1ii: the kernel's main term differs from T1ii:reconstructed's right side; "
                           "update experiments.position_metrics")


# --- one window -------------------------------------------------------------------------


def _blocks(L: int, causal_prefix: bool):
    """Row blocks (r0, r1, K) of the first L rows: a causal prefix row r sees keys < r + 1, so
    keys up to r1 suffice; otherwise every row takes the L keys."""
    return [(r0, min(r0 + _BLOCK, L), min(r0 + _BLOCK, L) if causal_prefix else L) for r0 in range(0, L, _BLOCK)]


def _softmax64(logits):
    import torch

    return torch.softmax(torch.from_numpy(np.asarray(logits)), dim=-1, dtype=torch.float64)  # cast, then softmax


class _Logits:
    """One layer's logits (H, L, L) float32, −inf at hidden keys; kept by row blocks in prefix
    mode (the keys past a block's last row are hidden: about half the memory of the full map).

    With ``qk`` = (queries, keys, scaling), each (H, L, dh) float32, a kept layer holds those
    instead of its logits (2·L·dh floats per head instead of about L²/2 + 64·L) and
    :meth:`block` recomputes a block as the capture did, (q·kᵀ)·scaling with −inf outside each
    row's visible range. That is used only when every recomputed block equals the captured
    logits exactly (checked here, block by block); otherwise the logits are copied as below."""

    def __init__(self, logits, prefix: bool, keep: bool = False, buffer=None, blocks=None, qk=None):
        L = logits.shape[-1]
        self.L = L
        self.prefix = prefix
        self.qk = None
        if prefix and keep and qk is not None and self._recompute_matches(logits, *qk):
            self.parts, self.full = None, None
        elif prefix and keep:  # copied into ``buffer`` (1-D float32 of kept_size), one block after the other,
            H = logits.shape[0]  # or block k into ``blocks[k]`` (1-D float32 of H·(r1 − r0)·r1 each)
            if buffer is None and blocks is None:
                buffer = np.empty(self.kept_size(H, L), dtype=np.float32)
            self.parts, at = [], 0
            for k, (r0, r1, _) in enumerate(_blocks(L, True)):
                size = H * (r1 - r0) * r1
                part = (buffer[at:at + size] if blocks is None else blocks[k][:size]).reshape(H, r1 - r0, r1)
                part[...] = logits[:, r0:r1, :r1]
                self.parts.append(part)
                at += size
            self.full = None
        else:
            self.parts, self.full = None, logits

    def _recompute_matches(self, logits, q, k, scaling) -> bool:
        """Keep (q, k) if every block recomputed from them equals ``logits`` bit for bit."""
        L = self.L
        if q.ndim != 3 or q.shape[0] != logits.shape[0] or q.shape[1] < L or k.shape[0] != logits.shape[0] or k.shape[1] < L:
            return False
        ranges = ex._visible_ranges(np.isfinite(logits[0]), L, L)  # each row's visible keys: one range
        if ranges is None:
            return False
        self.qk = (np.ascontiguousarray(q[:, :L], dtype=np.float32), np.ascontiguousarray(k[:, :L], dtype=np.float32),
                   float(scaling))
        self.ranges = ranges
        for r0, r1, K in _blocks(L, True):
            if not np.array_equal(self.block(r0, r1, K), logits[:, r0:r1, :K]):
                self.qk = None
                return False
        return True

    def drop_rows(self, r: int) -> None:
        """Forget the kept blocks of the rows >= r (no later use reads them)."""
        if self.parts is not None:
            for k, (r0, _, _) in enumerate(_blocks(self.L, True)):
                if r0 >= r:
                    self.parts[k] = None

    @staticmethod
    def block_sizes(H: int, L: int) -> list:
        """Elements of each kept prefix block of one layer."""
        return [H * (r1 - r0) * r1 for r0, r1, _ in _blocks(L, True)]

    @staticmethod
    def kept_size(H: int, L: int) -> int:
        """Elements of one layer's kept prefix blocks."""
        return sum(H * (r1 - r0) * r1 for r0, r1, _ in _blocks(L, True))

    def block_ranges(self, r0: int, r1: int, K: int):
        """(logits, ranges) of a block: with ``ranges`` (starts, ends) each row's visible keys
        (one range), the logits outside them are arbitrary (a recomputed block is not masked);
        ranges None: the logits are masked with −inf and the visible keys are not one range."""
        if self.qk is not None:
            import torch

            q, k, scaling = self.qk
            out = torch.from_numpy(ex.scratch("logits", (q.shape[0], r1 - r0, K), np.float32))
            with ex.torch_all_threads():
                torch.matmul(torch.from_numpy(q[:, r0:r1]), torch.from_numpy(k[:, :K]).transpose(-1, -2), out=out)
                out.mul_(scaling)  # (q·kᵀ)·scaling, as :meth:`block` (and the capture) computes it
            return out.numpy(), (self.ranges[0][r0:r1], np.minimum(self.ranges[1][r0:r1], K - 1))
        logits = self.block(r0, r1, K)
        vis = np.isfinite(logits[0]) if self.prefix else None
        return logits, ex._visible_ranges(vis, r1 - r0, K)

    def block(self, r0: int, r1: int, K: int):
        if self.qk is not None:
            import torch

            q, k, scaling = self.qk
            out = (torch.matmul(torch.from_numpy(q[:, r0:r1]), torch.from_numpy(k[:, :K]).transpose(-1, -2)) * scaling).numpy()
            starts, ends = self.ranges
            keys = np.arange(K)[None, :]
            out[:, (keys < starts[r0:r1, None]) | (keys > ends[r0:r1, None])] = -np.inf
            return out
        if self.full is not None:
            return self.full[:, r0:r1, :K]
        return self.parts[r0 // _BLOCK][:, :r1 - r0, :K]


def _rows(lg: _Logits, x, L: int, prefix: bool, spec: dict, limits: dict | None = None, keys=None) -> dict:
    """Per-row metrics (B, n_N, L) of the first L rows of one layer, block by block.

    ``spec`` maps N to the quantities wanted there (names of
    :func:`~attnbounds.empirical.experiments.position_metrics`, plus ``d1_pair``);
    d1_pair comes from running maxima (:class:`~attnbounds.empirical.experiments.PairTable`).
    ``limits`` {N: rows}: N only on the rows r < rows (E3's N of a shorter L; the compiled
    engine leaves the rows beyond NaN, the torch path may compute them: callers sum rows < rows only).
    ``keys``: the layer's :class:`~attnbounds.empirical.experiments.RowKeys` when the caller
    keeps them (their first L vectors are x's). Also returns ``keys`` (L,), the number of
    keys each row sees.
    """
    with ex.torch_single_thread():
        return _rows_blocks(lg, x, L, prefix, spec, limits or {}, keys)


def _rows_blocks(lg: _Logits, x, L: int, prefix: bool, spec: dict, limits: dict, keys=None) -> dict:
    ns = sorted(spec)
    parts: dict = {"keys": np.full(L, L, dtype=np.int64)}
    B = x.shape[0]
    pn = [n for n in ns if "d1_pair" in spec[n]]
    what = {n: set(spec[n]) - {"d1_pair"} for n in ns}
    every = set().union(*what.values()) if what else set()
    engine = None
    if ex._fused_kernels() is not None:  # the compiled row engine: the layer's vectors and checkpoints, once
        need_gram = bool(ns) and (ns[0] < ex.GRAM_GAP or bool(pn))
        if keys is None or (need_gram and keys.gram is None):
            keys = ex.RowKeys(x[:, :L], gram=need_gram, reuse=True)
        engine = (keys, ex.EnginePlan(ns, what, limits))
        out = engine[1].outputs(B, L, reuse=True)
        order_all = np.zeros((B, L, max(pn, default=0)), dtype=np.int64) if pn else None
    # running maxima of ‖x_i − x_j‖² for d_1 (all heads), from the engine's Gram matrix when there is one
    table = ex.PairTable(x[:, :L], gram=None if engine is None else engine[0].gram, reuse=True) if pn else None
    maxima = None
    for r0, r1, K in _blocks(L, prefix):
        if engine is not None:
            logits, ranges = lg.block_ranges(r0, r1, K)
            vis = None
            if prefix and ranges is None:  # not one range per row: the torch path, with the mask
                vis = np.isfinite(logits[0])
        else:
            logits = lg.block(r0, r1, K)
            vis = np.isfinite(logits[0]) if prefix else None  # causal mask and sliding windows
            ranges = ex._visible_ranges(vis, r1 - r0, K)
        if prefix:
            parts["keys"][r0:r1] = vis.sum(-1) if ranges is None else ranges[1] - ranges[0] + 1
        # d_1 of causal prefix rows (row r sees the keys 0 … r) comes straight from the table
        # (distance_max, below); otherwise from the running maxima of the block's rows (prefix
        # blocks come in order) or of every key, looked up by pair_distance_max
        causal = prefix and ranges is not None and not np.any(ranges[0] > 0)
        if prefix and ranges is not None and vis is None and pn and not causal:
            vis = _range_mask(ranges, K)  # pair_distance_max reads each row's keys from the mask
        if table is not None and not causal:
            if prefix:
                maxima = table.rows(r0, r1, None if ranges is None else ranges[0])
            elif maxima is None:
                maxima = table.every()
        use = [n for n in ns if n < K and limits.get(n, L) > r0]
        here = [n for n in pn if n in use]
        if table is not None and causal and not here:
            table.distance_max(r0, r1, None, [])  # no d_1 here: the table still passes the block
        if not use:
            continue
        if engine is not None and ranges is not None:  # every head, every N of the block in one call
            ex.row_engine(logits, engine[0], engine[1], ranges, out, r0=r0, order_out=order_all, from_logits=True)
            order = None if order_all is None else _torch(order_all[:, r0:r1])
            res = None
        else:
            w = _softmax64(logits)
            large = [n for n in use if n > 256 and not spec[n] & {"separability", "terms", "d1_pair"}]
            k = max([n for n in use if n not in large] or [0])
            order = ex.top_order(w, k) if k else None
            res = ex.position_metrics(w, x[:, :K], use, visible=vis, order=order, what={n: what[n] for n in use})
        cols = [ns.index(n) for n in use]
        if res is not None:
            for key, v in res.items():
                parts.setdefault(key, np.full((B, len(ns), L), np.nan))[:, cols, r0:r1] = v
        if here:  # d_1 of every N in one call (one set-up)
            parts.setdefault("d1_pair", np.full((B, len(ns), L), np.nan))[:, [ns.index(n) for n in here], r0:r1] = \
                table.distance_max(r0, r1, order, here) if causal else \
                ex.pair_distance_max(x[:, :K], order, here, vis, maxima=maxima, gram=table.gram_array)
    if engine is not None:
        for key, v in engine[1].results(out, every, ns).items():
            have = parts.get(key)
            parts[key] = v if have is None else np.where(np.isnan(v), have, v)  # blocks the torch path took
    return parts


def _range_mask(ranges, K: int) -> np.ndarray:
    """(R, K) the keys starts[r] … ends[r] of each row."""
    keys = np.arange(K)[None, :]
    return (keys >= ranges[0][:, None]) & (keys <= ranges[1][:, None])


def _torch(a):
    import torch

    return torch.from_numpy(np.ascontiguousarray(a))


def _sums(rows: np.ndarray, L: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-head (sum, count) over the rows t ≤ L that were not skipped (:func:`_sums_upto`'s)."""
    return _sums_upto(rows, [L])[L]


def _sums_upto(rows: np.ndarray, lengths) -> dict:
    """{L: per-head (sum, count) over the rows t ≤ L that were not skipped} for each L in
    ``lengths``, from one running sum over the rows (one pass for every L of a prefix)."""
    lengths = [int(L) for L in lengths]
    if not lengths:
        return {}
    part = rows[..., :max(lengths)]
    finite = np.isfinite(part)
    total = np.cumsum(np.where(finite, part, 0.0), axis=-1)
    count = np.cumsum(finite, axis=-1)
    return {L: (total[..., L - 1].copy(), count[..., L - 1].copy()) for L in lengths}  # copies: E3 keeps
    # them, and a view would keep the whole running sum alive (200 MB over a paper-scale run)


def _fold(v: np.ndarray, S: int) -> np.ndarray:
    """Sum over S windows stacked along the head axis: (S·H,) -> (H,)."""
    return v.reshape(S, -1).sum(0) if S > 1 else v


def _ratio(total, count) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _means(rows: np.ndarray, L: int) -> np.ndarray:
    """Per-head mean over the rows t ≤ L that were not skipped (NaN when all were)."""
    part = rows[..., :L]
    cnt = np.isfinite(part).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, np.nansum(part, -1) / np.maximum(cnt, 1), np.nan)


class _Heads:
    """Accumulates per-head sums and counts over query positions (from every window of a
    length); heads.csv's value is their ratio, the mean over positions."""

    _COUNTED = {"E1": "d_tilde", "E2": "d_tilde", "E4": "ns_over_n", "E5": "g"}

    def __init__(self, window: int):
        self.window = window
        self.acc: dict = {}  # (experiment, metric, layer, L, N, T, ε) -> [sums (H,), counts (H,)]

    def add(self, experiment, metric, sums, counts, L, N, y, T=None, epsilon=None) -> None:
        key = (experiment, metric, int(y), int(L), -1 if N is None else int(N),
               np.nan if T is None else float(T), np.nan if epsilon is None else float(epsilon))
        got = self.acc.get(key)
        if got is None:
            self.acc[key] = [np.asarray(sums, dtype=np.float64).copy(), np.asarray(counts, dtype=np.float64).copy()]
        else:
            got[0] += sums
            got[1] += counts

    def table(self) -> dict:
        cols = {c: [] for c in HEADS_COLUMNS}
        for (e, m, y, L, N, T, eps), (tot, cnt) in self.acc.items():
            v = _ratio(tot, cnt)
            H = v.shape[0]
            for c, val in (("experiment", e), ("layer", y), ("window", self.window), ("L", L), ("N", N), ("T", T),
                           ("epsilon", eps), ("metric", m)):
                cols[c] += [val] * H
            cols["head"] += list(range(H))
            cols["value"] += v.tolist()
        out = {}
        for c, v in cols.items():
            if c in ("experiment", "metric"):
                out[c] = np.array(v, dtype=str)
            elif c in ("T", "epsilon", "value"):
                out[c] = np.array(v, dtype=np.float64)
            else:
                out[c] = np.array(v, dtype=np.int64)
        return out

    def positions(self) -> dict:
        """How many query positions each per-head mean rests on (the least over layers and
        heads), per (experiment, L, N): table ``positions`` (window, experiment, L, N, positions)."""
        least: dict = {}
        for (e, m, y, L, N, T, eps), (_, cnt) in self.acc.items():
            if self._COUNTED.get(e) != m:
                continue
            k = (e, L, N)
            least[k] = min(least.get(k, np.inf), float(cnt.min()))
        keys = sorted(least)
        return {"window": np.full(len(keys), self.window, dtype=np.int64),
                "experiment": np.array([k[0] for k in keys], dtype=str),
                "L": np.array([k[1] for k in keys], dtype=np.int64), "N": np.array([k[2] for k in keys], dtype=np.int64),
                "positions": np.array([least[k] for k in keys], dtype=np.int64)}


def tiles(ids, L: int) -> np.ndarray | None:
    """The windows of length L that tile a window of ``ids`` after its first L tokens:
    (S, L) token ids [kL, (k+1)L) for k = 1 … ⌊len/L⌋ − 1, or None when there are none.

    >>> tiles(np.arange(8), 2).tolist()
    [[2, 3], [4, 5], [6, 7]]
    """
    ids = np.asarray(ids)
    m = ids.shape[0] // L
    return ids[L:m * L].reshape(m - 1, L) if m > 1 else None


def paper_window_tables(handle, ids, window: int, config, capture_fn=None, stage=None, batch_fn=None) -> tuple[dict, dict]:
    """All paper-protocol tables of one window: ({name: columns}, timing).

    Tables: ``heads`` (HEADS_COLUMNS), ``positions`` (window, experiment, L, N, positions),
    ``critical_n`` (window, L, N_crit, statistic, p_value) and ``ks_scan`` (window, L, N,
    statistic, p_value, d_tilde_mean, expectation_mean).
    The forward pass is streamed (:func:`_each_layer`): each layer's rows are reduced to
    per-head sums as the layer is computed. A causal model takes one forward pass per
    window (every L is a prefix of it); a bidirectional one, one per L. With
    ``config.tile`` (the default), each L < the window's length also takes the windows of
    length L that tile the rest of the window (:func:`tiles`), all in one batched forward
    pass, so a short L's mean rests on as many query positions as the longest L's. E3's
    search reuses the logits of those passes (kept by row blocks, float32), so it needs no
    forward of its own.
    """
    with ex.blas_single_thread():  # for the whole window: see blas_single_thread
        return _paper_window_tables(handle, ids, window, config, capture_fn, stage, batch_fn)


def _paper_window_tables(handle, ids, window: int, config, capture_fn, stage, batch_fn) -> tuple[dict, dict]:
    if capture_fn is None:
        from attnbounds.empirical.capture import capture_attention as capture_fn
    if batch_fn is None:
        from attnbounds.empirical.capture import capture_batch as batch_fn
    from attnbounds.empirical.run import without_lm_head

    stage = stage or (lambda name: None)
    handle = without_lm_head(handle)
    exps = set(config.experiments)
    lengths = list(config.lengths)
    Lmax = lengths[-1]
    causal = bool(handle.causal)
    prefix = causal and config.rows == "prefix"
    tile = bool(getattr(config, "tile", True))
    P = PaperSettings
    clock = {"forward_seconds": 0.0, "metric_seconds": 0.0}
    # where the metric seconds go (results.json's timing, report.md): E1/E2/E4 and E3's scan rows,
    # E3's search, E5, H1, the claims' forms (checked once); the rest of metric_seconds is "other"
    parts = dict.fromkeys(METRIC_PARTS, 0.0)
    heads = _Heads(window)
    forms: dict = {}
    decided: list = []  # the claim forms are checked once, on the first layer
    L5 = (config.e5_length or e5_default_length(lengths)) if "E5" in exps else None
    e1_n = [n for n in P.e1_n if "E1" in exps]
    e2_n = [n for n in P.e2_n if "E2" in exps and n < Lmax]
    e4_n = [n for n in P.e4_n if "E4" in exps and n < Lmax]
    ks = _KSSearch(lengths, config, prefix, window) if "E3" in exps else None
    # H1's probe (with E4): at E5's length, or the largest L <= 256
    LH1 = e5_default_length(lengths) if "E4" in exps and any(L > H1_N for L in lengths) else None
    if LH1 is not None and LH1 <= H1_N:
        LH1 = next(L for L in lengths if L > H1_N)
    h1: dict = {k: [] for k in H1_COLUMNS + ["jaccard_rows"]}

    def spec_for(K, levels=()):
        """({N: quantities}, {N: rows}) of a layer's rows over K keys: E1 at every L, E2 and E4
        at the largest, and E3's scan points (:func:`ks_scan_points`) of each L in ``levels``,
        each on the rows r < L only (a prefix row serves every L above it)."""
        e12 = sorted(set(e1_n) | (set(e2_n) if K == Lmax else set()))
        spec = {n: {"mass", "main", "terms" if forms.get("T1i") == "d1_norm" else "d1_pair"} for n in e12 if n < K}
        for n in (e4_n if K == Lmax else []):
            spec.setdefault(n, set()).add("separability")
        limits: dict = {}
        if ks is not None:
            every_row = set(spec)
            for L in levels:
                for n in ks_scan_points(L):
                    if n >= min(L, K):
                        continue
                    spec.setdefault(n, set()).add("main")
                    if n not in every_row and L < K:
                        limits[n] = max(limits.get(n, 0), L)
                    elif n not in every_row:
                        every_row.add(n)
                        limits.pop(n, None)
        return spec, limits

    def decide_forms(lg, x, L):
        r1 = min(_BLOCK, L)
        logits = lg.block(0, r1, r1 if prefix else L)
        vis = np.isfinite(logits[0]) if prefix else None
        w = _softmax64(logits).numpy()
        ns = [n for n in sorted(set(e1_n) | set(e2_n)) if n < w.shape[-1]]
        if ns:
            order = ex.top_order(w, max(ns))
            forms.update(claim_forms(w, x[:, :w.shape[-1]], vis, ns, None, order))

    def layer_rows(y, lg, x, K, means_for, S=1, tile=False):
        """E1/E2/E4, and E3's scan points, of one layer over its first K rows; per-head sums for
        each L in ``means_for``. S > 1: S windows stacked along the head axis (their sums are
        added per head); ``tile``: the windows that tile the rest of the window at L = K."""
        spec, limits = spec_for(K, means_for)
        if not spec:
            return
        if not decided:
            decided.append(True)
            t0 = time.perf_counter()
            decide_forms(lg, x, K)
            parts["claim_forms"] += time.perf_counter() - t0
            spec, limits = spec_for(K, means_for)
        t0 = time.perf_counter()
        _layer_rows(y, lg, x, K, means_for, S, tile, spec, limits)
        parts["rows"] += time.perf_counter() - t0

    def _layer_rows(y, lg, x, K, means_for, S, tile, spec, limits):
        """layer_rows' rows and per-head sums, once the claims' forms are decided."""
        rows = _rows(lg, x, K, prefix, spec, limits)
        tcount = rows.pop("keys")  # (K,) keys each row sees (a sliding window sees fewer than t)
        if ks is not None:
            ks.see_keys(means_for, tcount)
        ns = sorted(spec)
        for a, n in enumerate(ns):
            terms = {k: rows[k][:, a] for k in rows}
            if ks is not None and "main" in spec[n]:  # E3: the rows of N (d̃ and the main term) seed the search
                if tile:
                    ks.seed_tiles(y, n, K, terms["d_tilde"], terms["main"], S)
                elif prefix:
                    ks.seed(y, n, terms["d_tilde"], terms["main"], upto=limits.get(n))
                else:
                    ks.seed(y, n, terms["d_tilde"], terms["main"], L=K)
            if n in e1_n or (n in e2_n and K == Lmax):  # (what spec_for asked the quantities of)
                bound = _t1_bound_candidates(terms, tcount[None, :], n)[forms.get("T1i", "d1_pair")]
                e12 = (("d_tilde", terms["d_tilde"]), ("bound", bound), ("expectation", terms["main"]))

            at = [L for L in means_for if n < L]
            upto: dict = {}  # name -> {L: (sum, count)}, one running sum per quantity

            def add(experiment, name, vals, L):
                if name not in upto:
                    upto[name] = _sums_upto(vals, at)
                tot, cnt = upto[name][L]
                heads.add(experiment, name, _fold(tot, S), _fold(cnt, S), L, n, y)

            for L in means_for:
                if n >= L:
                    continue
                if n in e1_n:
                    for name, vals in e12:
                        add("E1", name, vals, L)
                if n in e2_n and L == Lmax:
                    for name, vals in e12:
                        add("E2", name, vals, L)
                if n in e4_n and L == Lmax:
                    for name, key in (("ns_over_n", "ns_over_n"), ("lower_bound", "t2_lower"), ("upper_bound", "t2_upper")):
                        add("E4", name, terms[key], L)

    def e5(y, logits, S, part):
        t0 = time.perf_counter()
        tot, cnt = _e5_layer(logits, causal, config.seed, window, L5, y, part)
        parts["e5"] += time.perf_counter() - t0
        for i, T in enumerate(P.temperatures):
            for j, e in enumerate(P.epsilons):
                heads.add("E5", "g", _fold(tot[:, i, j], S), _fold(np.full(tot.shape[0], cnt, dtype=np.float64), S),
                          L5, None, y, T=T, epsilon=e)

    store: dict = {}  # prefix mode with E3: block k of every layer in one allocation (no fragments),
    # freed once E3 no longer reads its rows

    def main_pass(Lc, group):
        kept = []

        def on_layer(y, logits, x, record=None):
            stage(f"E1/E2/E4/E5 layer {y + 1}" + ("" if len(group) > 1 else f", L={Lc}"))
            blocks = None
            if prefix and ks is not None:
                if not store:  # (pages are committed only where a layer's copy is written)
                    for k, size in enumerate(_Logits.block_sizes(logits.shape[0], Lc)):
                        store[k] = np.empty((handle.n_layers, size), dtype=np.float32)
                blocks = [store[k][y] for k in sorted(store)]
            qk = None
            if record is not None and record.get("queries") is not None and not record.get("softcap"):
                qk = (record["queries"], record["keys"], record["scaling"])
            kept_lg = _Logits(logits[:, :Lc, :Lc], prefix, keep=ks is not None, blocks=blocks, qk=qk)
            # E1/E2/E4 read the captured logits (E3's kept layer recomputes its blocks)
            lg = _Logits(logits[:, :Lc, :Lc], prefix) if kept_lg.qk is not None else kept_lg
            if x.shape[0] != logits.shape[0]:  # vectors shared by the heads (hidden states): one copy per head
                x = np.ascontiguousarray(np.broadcast_to(x, (logits.shape[0],) + x.shape[1:]))
            if prefix or not causal:
                layer_rows(y, lg, x, Lc, group)
            else:  # full rows of a causal model: each L over its own (L, L) block
                for L in group:
                    layer_rows(y, lg, x, L, [L])
            if L5 is not None and L5 in group and (causal or L5 == Lc):
                e5(y, logits[:, :L5, :L5], 1, 0)
            if LH1 is not None and LH1 in group and (causal or LH1 == Lc):
                t0 = time.perf_counter()
                probe = h1_layer(logits, x, causal and prefix, LH1)
                parts["h1"] += time.perf_counter() - t0
                for k in H1_COLUMNS:
                    h1[k].append({"window": window, "layer": y, "L": LH1, "N": H1_N}.get(k, probe.get(k)))
                h1["jaccard_rows"].append(probe["jaccard_rows"])
            if ks is not None:
                kept.append((kept_lg, x))
            _release_freed_memory()

        _each_layer(capture_fn, handle, ids[:Lc], config, on_layer, clock, queries=prefix and ks is not None)
        return kept

    def tile_pass(L, sub):
        """The S windows of length L that tile the rest of the window, in one batched forward:
        each layer's logits (S·H, L, L) are one batch of S·H rows sets."""
        kept = []
        S = sub.shape[0]

        def on_layer(y, logits, x):  # logits (S, H, L, L), x (S, H|1, L, d)
            stage(f"E1/E3/E5 L={L}: {S} more windows, layer {y + 1}")
            H = logits.shape[1]
            if x.shape[1] != H:
                x = np.broadcast_to(x, (S, H) + x.shape[2:])
            flat = logits.reshape((S * H,) + logits.shape[2:])
            xf = np.ascontiguousarray(x).reshape((S * H,) + x.shape[2:])
            lg = _Logits(flat, prefix, keep=ks is not None)
            layer_rows(y, lg, xf, L, [L], S=S, tile=True)
            if L5 is not None and L5 == L:
                e5(y, flat, S, 1)
            if ks is not None:
                kept.append((lg, xf, S))
            _release_freed_memory()

        _each_layer_batch(batch_fn, handle, sub, config, on_layer, clock)
        return kept

    stage("forward")
    kept = main_pass(Lmax, lengths) if causal else None
    down = sorted(lengths, reverse=True)
    for i, L in enumerate(down):
        if not causal:
            kept = main_pass(L, [L])
        sub = tiles(ids[:Lmax], L) if tile else None
        kept_sub = tile_pass(L, sub) if sub is not None and ("E1" in exps or "E3" in exps or L == L5) else None
        if ks is not None:
            t0 = time.perf_counter()
            ks.run(kept, [L], stage, kept_sub)
            ks.release(kept_sub)
            if not causal:
                ks.release(kept)
            spent = time.perf_counter() - t0
            clock["metric_seconds"] += spent
            parts["e3_search"] += spent
        del kept_sub
        if store and kept is not None:  # the shorter lengths read only the rows below the next L
            nxt = down[i + 1] if i + 1 < len(down) else 0
            for lg, _ in kept:
                lg.drop_rows(nxt)
            for k, (r0, _, _) in enumerate(_blocks(Lmax, True)):
                if r0 >= nxt:
                    store.pop(k, None)
            _release_freed_memory()
    ex.release_scratch()
    tables = ks.tables() if ks is not None else {}
    tables["heads"] = heads.table()
    tables["positions"] = heads.positions()
    if LH1 is not None:
        tables["multihead"] = {k: np.asarray(v, dtype=np.int64 if k in ("window", "layer", "L", "N") else np.float64)
                               for k, v in h1.items()}
    parts["other"] = max(clock["metric_seconds"] - sum(parts.values()), 0.0)
    return tables, {**clock, "metric_parts": parts, "claim_forms": forms}


def _each_layer_batch(batch_fn, handle, sub, config, fn, clock) -> None:
    """One batched forward over ``sub`` (S, L); ``fn(layer, logits (S, H, L, L), x (S, H|1, L, d))`` per layer."""
    import time as _time

    spent = [0.0]
    t0 = _time.perf_counter()
    if config.vectors == "hidden":
        recs = []
        hidden = batch_fn(handle, sub, lambda y, r: recs.append(r["logits"]), hidden=True)  # (Y, S, L, dm)
        clock["forward_seconds"] += _time.perf_counter() - t0
        t1 = _time.perf_counter()
        for y, logits in enumerate(recs):
            h = hidden[y][:, None]  # (S, 1, L, dm)
            fn(y, logits, ex.to_sphere(h) if config.sphere else np.asarray(h, dtype=np.float64))
        clock["metric_seconds"] += _time.perf_counter() - t1
        return

    def on_layer(y, record):
        t1 = _time.perf_counter()
        x = record["values"] if config.vectors == "values" else record["keys"]  # (S, H, L, dh)
        fn(y, record["logits"], ex.to_sphere(x) if config.sphere else np.asarray(x, dtype=np.float64))
        spent[0] += _time.perf_counter() - t1

    batch_fn(handle, sub, on_layer)
    clock["forward_seconds"] += _time.perf_counter() - t0 - spent[0]
    clock["metric_seconds"] += spent[0]


def _each_layer(capture_fn, handle, ids, config, fn, clock, queries: bool = False) -> None:
    """One forward pass over ``ids`` keeping every query row; ``fn(layer, logits (H, L, L), x (H|1, L, d),
    record)`` per layer (``record``: the capture's record of the layer, with the queries when
    ``queries``; None with ``--vectors hidden``).

    Streamed through ``capture_fn(..., on_layer=...)`` (values or keys; no hidden states); with
    ``--vectors hidden`` the layer inputs are known only after the pass, so the logits of
    every layer are kept and ``fn`` runs afterwards. Adds to ``clock``'s forward and metric seconds.
    """
    import time as _time

    ids = np.asarray(ids)
    L = ids.shape[0]
    spent = [0.0]

    def timed(y, logits, x, record):
        t0 = _time.perf_counter()
        fn(y, logits, x, record)
        spent[0] += _time.perf_counter() - t0

    t0 = _time.perf_counter()
    if config.vectors == "hidden":
        cap = capture_fn(handle, ids, np.arange(L), fields=("logits",))
        x_all = select_x(cap, config, L)
        clock["forward_seconds"] += _time.perf_counter() - t0
        t1 = _time.perf_counter()
        for y in range(cap.n_layers):
            fn(y, cap.logits[y], x_all[y], None)
        clock["metric_seconds"] += _time.perf_counter() - t1
        return

    def on_layer(y, record):
        x = record["values"] if config.vectors == "values" else record["keys"]  # (H, L, dh)
        timed(y, record["logits"], ex.to_sphere(x) if config.sphere else np.asarray(x, dtype=np.float64), record)

    capture_fn(handle, ids, np.arange(L), fields=("logits", "queries") if queries else ("logits",), on_layer=on_layer,
               hidden=False)
    clock["forward_seconds"] += _time.perf_counter() - t0 - spent[0]
    clock["metric_seconds"] += spent[0]


_H1_ROWS = 8  # query rows per batch of H1's probe: its (H, rows, t, d) float64 temporaries stay below glibc's
# 32 MB mmap threshold (at 32 rows each one was a fresh mapping: 1.6 s of page faults per 3 layers at L = 256)
H1_N = 16  # H1's top-set size: the paper's saturation point of N_s/N (E4)
H1_COLUMNS = ["window", "layer", "L", "N", "rows", "p", "ns_over_n", "coverage", "independent", "union_bound",
              "worst_case", "jaccard"]


def h1_layer(logits, x, causal: bool, L: int, n: int = H1_N, *, fused: bool | None = None) -> dict:
    """H1's probe on one layer: how the heads' distinguishable sets cover the top set.

    At each query row with more than ``n`` keys (the first L rows; a causal row over its
    visible keys), each head h's distinguishable tokens S_h are
    :func:`attnbounds.numerics.selection.distinguishable_mask` at E4's radius (r = min over
    non-selected i of ‖s − α_i x_i‖, taken just below r); the top set is the union U of the
    heads' top-N sets. :func:`attnbounds.numerics.coverage.head_overlap` gives the covered
    fraction |∪ S_h|/|U|, the union bound, the worst case and the Jaccard overlap, and the
    Discussion's 1 − Π(1 − p_h) with p_h = |S_h|/|U| is the claim module's formula
    (``attnbounds.claims.multihead.mask_sides``, evaluated on the heads' observed sets). Returns per-layer sums over rows
    (``rows`` counts them; ``jaccard`` is summed over rows where it is defined, counted in
    ``jaccard_rows``).

    ``fused`` (default: when numba is installed) finds the sets of every (head, row) by
    :func:`attnbounds.empirical.fused.h1_heads` and their union and pair counts by
    :func:`attnbounds.empirical.fused.h1_universe`, calls the formula once per group of rows
    with the same |U|, and takes the union bound, worst case and Jaccard overlap from the
    counts (checked against ``head_overlap`` on three rows of each layer); ``fused=False`` is
    the row-by-row reference. Every output is a function of the sets, and the two paths give
    the same sets and the same sums, bit for bit (tested; a full gpt2-random run's
    ``multihead.csv`` is identical).
    """
    fz = ex._fused_kernels()
    if fused and fz is None:
        raise ValueError("fused: needs numba")
    if fz is None or fused is False:
        return _h1_layer_rows(logits, x, causal, L, n)
    from attnbounds.claims.multihead import mask_sides
    from attnbounds.numerics.coverage import head_overlap

    formula = mask_sides("any-heads")
    w_all = _softmax64(logits[:, :L, :L]).numpy()  # (H, L, L)
    H = w_all.shape[0]
    out = {k: 0.0 for k in H1_COLUMNS[4:]}
    out["jaccard_rows"] = 0.0
    rows = np.array([r for r in range(L) if (r + 1 if causal else L) > n], dtype=np.int64)
    if rows.size == 0:
        return out
    t = rows + 1 if causal else np.full(rows.size, L, dtype=np.int64)  # (R,) keys of each row
    # each row renormalized over its visible keys, by the reference's own sums (the same weights)
    sums = np.stack([w_all[:, r, :t[q]].sum(-1) for q, r in enumerate(rows)], axis=1)  # (H, R)
    xs = np.ascontiguousarray(x[:, :int(t.max())], dtype=np.float64)  # (H|1, K, d)
    top = np.empty((H, rows.size, n), dtype=np.int64)
    dist = np.empty((H, rows.size, n), dtype=np.bool_)
    fz.h1_heads(w_all, sums, rows, xs, t, n, top, dist)
    masks = np.zeros((rows.size, H, H * n), dtype=np.bool_)  # (R, H, |U| padded)
    size = np.empty(rows.size, dtype=np.int64)
    counts = np.empty((rows.size, H), dtype=np.int64)
    pairs = H * (H - 1) // 2
    inter = np.empty((rows.size, pairs), dtype=np.int64)
    union = np.empty((rows.size, pairs), dtype=np.int64)
    fz.h1_universe(top, dist, t, masks, size, counts, inter, union)
    per = {"p": np.empty(rows.size), "coverage": np.empty(rows.size), "independent": np.empty(rows.size)}
    for k in np.unique(size):  # the claim's sides on the rows whose U has k tokens
        at = np.flatnonzero(size == k)
        m = masks[at, :, :k]  # (rows, H, |U|)
        sides = formula({"masks": m})
        per["coverage"][at] = sides.lhs
        per["independent"][at] = sides.rhs
        per["p"][at] = m.mean(-1).mean(-1)
    per.update(_h1_overlap(counts, size, inter, union))
    _check_overlap(masks, size, per, head_overlap)
    per["ns_over_n"] = counts.mean(-1) / n  # |S_h| over all the row's keys (⊂ U)
    for q in range(rows.size):  # sums in row order, as the reference adds them
        out["rows"] += 1
        for k in ("p", "ns_over_n", "coverage", "independent", "union_bound", "worst_case"):
            out[k] += float(per[k][q])
        if np.isfinite(per["jaccard"][q]):
            out["jaccard"] += float(per["jaccard"][q])
            out["jaccard_rows"] += 1
    return out


def _h1_overlap(counts, size, inter, union) -> dict:
    """Per row, :func:`attnbounds.numerics.coverage.head_overlap`'s union bound, worst case and
    Jaccard overlap from the counts of :func:`attnbounds.empirical.fused.h1_universe` (its
    arithmetic on the same integers: p_h = |S_h|/|U| and the references of
    :func:`attnbounds.numerics.coverage.coverage_references`; the mean over head pairs of
    |S_g ∩ S_h|/|S_g ∪ S_h|, NaN pairs (both sets empty) left out, NaN when all are)."""
    from attnbounds.numerics.coverage import coverage_references

    refs = coverage_references(counts / size[:, None])
    if inter.shape[1] == 0:  # one head
        jaccard = np.full(size.shape, np.nan)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            jac = inter / union
        all_nan = np.all(np.isnan(jac), axis=-1)
        jaccard = np.where(all_nan, np.nan, np.nanmean(np.where(all_nan[:, None], 0.0, jac), axis=-1))
    return {"union_bound": refs["union_bound"], "worst_case": refs["worst_case"], "jaccard": jaccard}


def _check_overlap(masks, size, per, head_overlap, rows: int = 3) -> None:
    """:func:`_h1_overlap` against ``head_overlap`` itself on ``rows`` rows of the layer (first,
    middle, last): a changed definition there stops the run instead of diverging silently."""
    for q in np.unique(np.linspace(0, size.size - 1, rows).astype(int)):
        ov = head_overlap(masks[q, :, :size[q]])["summary"]
        for key in ("union_bound", "worst_case", "jaccard"):
            a, b = float(ov[key]), float(per[key][q])
            if not (a == b or (np.isnan(a) and np.isnan(b))):
                raise RuntimeError(f"H1 probe: {key} differs from numerics.coverage.head_overlap ({b!r} != {a!r}); "
                                   "update protocol._h1_overlap")


def _h1_layer_rows(logits, x, causal: bool, L: int, n: int = H1_N) -> dict:
    """:func:`h1_layer` row by row (the reference): numpy distances per chunk of rows, and the
    formula and ``head_overlap`` called on each row."""
    from attnbounds.claims.multihead import mask_sides
    from attnbounds.numerics.attention import per_token_distance, top_n_mask
    from attnbounds.numerics.coverage import head_overlap

    formula = mask_sides("any-heads")
    w_all = _softmax64(logits[:, :L, :L]).numpy()  # (H, L, L)
    H = w_all.shape[0]
    xs = np.broadcast_to(x[:, :L], (H, L, x.shape[-1]))  # hidden states: one set shared by the heads
    out = {k: 0.0 for k in H1_COLUMNS[4:]}
    out["jaccard_rows"] = 0.0
    rows = [r for r in range(L) if (r + 1 if causal else L) > n]
    for c0 in range(0, len(rows), _H1_ROWS):  # a chunk of rows at once, each over its own t keys
        rs = rows[c0:c0 + _H1_ROWS]
        t = np.array([r + 1 if causal else L for r in rs])
        K = int(t.max())
        w = np.zeros((H, len(rs), K))
        for q, r in enumerate(rs):
            wr = w_all[:, r, :t[q]]
            w[:, q, :t[q]] = wr / wr.sum(-1, keepdims=True)
        vis = np.arange(K)[None, :] < t[:, None]  # (rows, K): the keys each row sees
        D = per_token_distance(w, xs[:, None, :K], n)  # (H, rows, K); a hidden key (α = 0) is never used
        top = top_n_mask(w, n)  # a hidden key (α = 0, after the visible ones; t > n) is never selected
        radius = np.where(top | ~vis, np.inf, D).min(-1)  # E4's r per head and row
        inside = D <= (radius * (1 - 1e-12))[..., None]  # just inside r
        # distinguishable_mask over the row's visible keys: selected, inside, and no visible
        # non-selected token inside
        separated = ~np.any(inside & ~top & vis, axis=-1, keepdims=True)
        masks_all = top & inside & separated  # (H, rows, K)
        for q in range(len(rs)):
            masks = masks_all[:, q]
            universe = top[:, q].any(0)  # the union of the heads' top sets
            m = masks[:, universe]  # (H, |U|)
            sides = formula({"masks": m})  # coverage and the claim's 1 − Π(1 − p_h)
            ov = head_overlap(m)
            out["rows"] += 1
            out["p"] += float(m.mean(-1).mean())
            out["ns_over_n"] += float(masks.sum(-1).mean() / n)
            out["coverage"] += float(sides.lhs)
            out["independent"] += float(sides.rhs)
            out["union_bound"] += float(ov["summary"]["union_bound"])
            out["worst_case"] += float(ov["summary"]["worst_case"])
            if np.isfinite(ov["summary"]["jaccard"]):
                out["jaccard"] += float(ov["summary"]["jaccard"])
                out["jaccard_rows"] += 1
    return out


def _e5_layer(logits, causal: bool, seed: int, window: int, L: int, layer: int, part: int = 0):
    """Per-head sum over query rows with t >= 2 keys of g(T, ε): ((B, n_T, n_ε), rows per head).

    ``part`` 0 is the window itself, 1 the windows that tile it (their own random stream)."""
    P = PaperSettings
    rng = ex.seeded_rng(seed, window, L, _RNG_E5, layer) if part == 0 else ex.seeded_rng(seed, window, L, _RNG_E5, layer, part)
    B = logits.shape[0]
    total = np.zeros((B, len(P.temperatures), len(P.epsilons)))
    count = 0
    lo = 1 if causal else 0  # a causal row with one key has g = 0 for every v
    for r0 in range(lo, L, 64):
        r1 = min(r0 + 64, L)
        K = r1 if causal else L
        g = ex.perturbation_gain(logits[:, r0:r1, :K], P.temperatures, P.epsilons, rng)  # (B, r, nT, nε)
        total += g.sum(1)
        count += r1 - r0
    return total, count


def _release_freed_memory() -> None:
    """Give the memory freed by a layer's temporaries back to the system (glibc's
    ``malloc_trim``; elsewhere nothing). The per-block temporaries (about 12 MB each) come
    from the heap, and the layers' kept logits between them would otherwise pin the freed
    pages: measured on gpt2-random, the resident memory grew by 50–100 MB per layer
    without it. It runs after each layer of the forward passes and after each L; E3's
    passes no longer need it (their temporaries are the engine's scratch arrays: without a
    trim there the full run's peak stayed 1.81 GB). A fixed small mmap threshold
    (``mallopt``) would bound the heap too, but quadrupled the page faults (each costs about
    2 µs of system time on this machine: +50 s on the full run)."""
    global _TRIM
    if _TRIM is None:
        try:
            import ctypes

            _TRIM = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _TRIM = False
    if _TRIM:
        _TRIM(0)


_TRIM = None


class _KSSearch:
    """E3 of one window: per L, two samples of per-head means (d̃ against the expectation)
    and one two-sample KS test per N; N_crit is the first N of :func:`ks_grid` whose test
    does not reject at level α. The grid is searched by a geometric scan (10 grid points,
    the first that does not reject wins), then bisection on the grid between that point and
    the last rejecting one. The rows come from the logits kept from the window's forward
    pass. In prefix mode a row does not depend on L, so the rows of an N serve every L
    (they are cached per N, and seeded with the N the main pass computed).
    """

    def __init__(self, lengths, config, prefix: bool, window: int):
        self.alpha = config.settings.ks_alpha
        self.prefix = prefix
        self.window = window
        self.lengths = list(lengths)
        # prefix: N -> {layer: {L: (Σ d̃, count, Σ main, count) per head}}; else (N, L) -> the same.
        # Only these sums are kept, not the rows (2 × 8 bytes × rows × heads per N and layer)
        self.rows: dict = {}
        self.done: dict = {}  # L -> (N_crit or None, {N: (statistic, p, mean d̃, mean expectation)})
        self.extra: dict = {}  # (L, N) -> per layer (Σ d̃, count, Σ main, count) over the tiling windows
        self._sizes: dict = {}  # L -> per-head means in each of the KS test's samples
        self._most_keys: dict = {}  # L -> the most keys a row r < L sees (a sliding window: fewer than L)
        self._keys: dict = {}  # id of a kept layer's vectors -> their RowKeys without a Gram matrix (‖x_i‖², ‖x_i‖),
        # one per layer for all of E3's passes (a pass with an N < GRAM_GAP makes its own, with the Gram matrix)

    def _key(self, n, L):
        return n if self.prefix else (n, L)

    def see_keys(self, lengths, keys) -> None:
        """Note how many keys the rows see (``keys`` (K,), row r of the pass): at each L in
        ``lengths``, the most over the rows r < L. With a sliding window of w keys in every layer
        no row leaves a key out at N >= w, so E3's grid stops below the most keys a row sees (a
        new user's trial: a Mistral with a 16-key window raised from the KS test at N = 21)."""
        keys = np.asarray(keys)
        if not keys.size:
            return
        for L in lengths:
            self._most_keys[L] = max(self._most_keys.get(L, 0), int(keys[:L].max()))

    def _keep(self, y: int, n: int, L, d_tilde_rows, main_rows, upto=None) -> None:
        """Keep layer y's per-head sums at N for every L the rows (H, L_rows) serve: in prefix
        mode every L of the run up to L_rows (a row does not depend on L), or up to ``upto``
        when only the rows r < upto were computed; else L only."""
        R = d_tilde_rows.shape[-1] if upto is None else min(upto, d_tilde_rows.shape[-1])
        got = self.rows.setdefault(self._key(n, L), {}).setdefault(y, {})
        want = [l for l in ([m for m in self.lengths if m <= R] if self.prefix else [L]) if l not in got]
        dt, mn = _sums_upto(d_tilde_rows, want), _sums_upto(main_rows, want)
        for l in want:
            got[l] = (*dt[l], *mn[l])

    def seed(self, y: int, n: int, d_tilde_rows, main_rows, L=None, upto=None) -> None:
        """Rows (H, L_rows) of layer y at N from the main pass: in prefix mode valid for every
        L ≤ L_rows (or ≤ ``upto``, the rows computed); else the rows of the pass of length L.

        In prefix mode only the window's own rows (L_rows = its length, the largest L) seed the
        search: a tiling window's rows belong to the tiling windows' sums (:meth:`seed_tiles`),
        not to the window's prefix."""
        if self.prefix:
            if d_tilde_rows.shape[-1] != max(self.lengths):
                return
            self._keep(y, n, None, d_tilde_rows, main_rows, upto)
        elif L is not None and L in self.lengths:
            self._keep(y, n, L, d_tilde_rows, main_rows)

    def seed_tiles(self, y: int, n: int, L: int, d_tilde_rows, main_rows, S: int) -> None:
        """Rows (S·H, L) of layer y at N of the S windows that tile the rest of the window at L
        (layers come in order, from the tiling pass): their per-head sums join E3's means."""
        got = self.extra.setdefault((L, n), [])
        if len(got) != y:  # a layer missed: leave (L, n) to _compute
            self.extra.pop((L, n))
            return
        sd, cd = _sums(d_tilde_rows, L)
        sm, cm = _sums(main_rows, L)
        got.append((_fold(sd, S), _fold(cd, S), _fold(sm, S), _fold(cm, S)))

    def _has(self, n, L, layers) -> bool:
        got = self.rows.get(self._key(n, L), {})
        return len(got) == layers and all(L in v for v in got.values())

    def run(self, kept, lengths, stage, sub=None) -> None:
        """The search at each L in ``lengths`` over the kept layers [(logits, x)] (largest L first);
        ``sub``: the kept layers [(logits, x, S)] of the windows that tile the rest of the window
        at that L (one L only), whose rows join every per-head mean."""
        if sub is not None and len(lengths) != 1:
            raise ValueError("sub: the tiling windows belong to one L")
        for L in sorted(lengths, reverse=True):
            self.done[L] = self._search(kept, L, stage, sub)

    def _compute(self, kept, L, ns, stage, sub=None) -> None:
        """The rows (main window) and per-head sums (tiling windows) of d̃ and the main term at
        each N of ``ns`` at L, all N in one pass over the kept logits; cached."""
        need = sorted({n for n in ns if not self._has(n, L, len(kept))})  # _rows' columns are in increasing N
        if need:
            stage(f"E3 L={L} N={','.join(map(str, need))}")
            for y, (lg, x) in enumerate(kept):
                rows = _rows(lg, x, L, self.prefix, {n: {"main"} for n in need}, keys=self._row_keys(x))  # d̃, main term
                for a, n in enumerate(need):
                    self._keep(y, n, L, rows["d_tilde"][:, a], rows["main"][:, a])
                del rows
        need = sorted({n for n in ns if (L, n) not in self.extra}) if sub else []
        if need:
            for y, (lg, x, S) in enumerate(sub):
                rows = _rows(lg, x, L, self.prefix, {n: {"main"} for n in need}, keys=self._row_keys(x))
                for a, n in enumerate(need):
                    sd, cd = _sums(rows["d_tilde"][:, a], L)
                    sm, cm = _sums(rows["main"][:, a], L)
                    self.extra.setdefault((L, n), []).append((_fold(sd, S), _fold(cd, S), _fold(sm, S), _fold(cm, S)))
                del rows

    def _row_keys(self, x):
        """The row engine's vectors of a kept layer, prepared once for all of E3's passes."""
        if ex._fused_kernels() is None:
            return None
        got = self._keys.get(id(x))
        if got is None or got[0] is not x:
            got = self._keys[id(x)] = (x, ex.RowKeys(x, gram=False))
        return got[1]

    def release(self, kept) -> None:
        """Forget the prepared vectors of these kept layers (their search is done)."""
        for item in kept or ():
            self._keys.pop(id(item[1]), None)

    def _test(self, kept, L, ns, tested, stage, sub=None) -> None:
        ns = [n for n in ns if n not in tested]
        self._compute(kept, L, ns, stage, sub)
        for n in ns:
            got = self.rows[self._key(n, L)]
            extra = self.extra.get((L, n)) if sub else None
            a_s, b_s = [], []
            for y in range(len(kept)):
                sd, cd, sm, cm = got[y][L]
                if extra is not None:
                    ed, ecd, em, ecm = extra[y]
                    sd, cd, sm, cm = sd + ed, cd + ecd, sm + em, cm + ecm
                a_s.append(_ratio(sd, cd))
                b_s.append(_ratio(sm, cm))
            a_s = np.concatenate(a_s)  # (Y·H,) per-head means
            b_s = np.concatenate(b_s)
            keep = np.isfinite(a_s) & np.isfinite(b_s)
            st, p = ex.ks_two_sample(a_s[keep], b_s[keep])
            tested[n] = (float(st), float(p), float(np.mean(a_s[keep])), float(np.mean(b_s[keep])))
            self._sizes[L] = int(keep.sum())

    def _ready(self, kept, L, n, sub) -> bool:
        """Whether the sums of N at L (and of the tiling windows) are computed."""
        return self._has(n, L, len(kept)) and (not sub or (L, n) in self.extra)

    @staticmethod
    def _ahead(lo: int, hi: int, depth: int) -> list:
        """The grid positions the next ``depth`` bisection steps may visit, from the bracket (lo, hi)."""
        out, level = [], [(lo, hi)]
        for _ in range(depth):
            nxt = []
            for a, b in level:
                if b - a > 1:
                    mid = (a + b) // 2
                    out.append(mid)
                    nxt += [(a, mid), (mid, b)]
            level = nxt
        return out

    @staticmethod
    def _paths(lo: int, hi: int, targets) -> list:
        """The grid positions the bisection from the bracket (lo, hi) visits on its way to each
        of ``targets`` (a target j: the first position whose test does not reject), in order."""
        out: list = []
        for j in targets:
            a, b = lo, hi
            while b - a > 1:
                mid = (a + b) // 2
                if mid not in out:
                    out.append(mid)
                if mid >= j:
                    b = mid
                else:
                    a = mid
        return out

    def _guess(self, lo: int, hi: int, grid, tested, L):
        """Where the bisection from (lo, hi) will end, guessed from the two bracketing tests: the
        position where the KS statistic, linear in N between them, crosses its critical value at
        level α (the asymptotic c(α)·√(2/n) for two samples of n per-head means, c(α) the
        inverse of the Kolmogorov distribution's survival function, ``scipy.special.kolmogi``:
        ``scipy.stats.kstwobign.isf``'s value without importing scipy.stats, about a second).
        None without a guess (no rejecting end, or a statistic that does not fall across the
        bracket)."""
        n = self._sizes.get(L, 0)
        if lo < 0 or n < 1:
            return None
        d_lo, d_hi = tested[int(grid[lo])][0], tested[int(grid[hi])][0]
        crit = float(special.kolmogi(self.alpha)) * math.sqrt(2.0 / n)
        if not d_lo > crit >= d_hi:
            return None
        return lo + (d_lo - crit) / (d_lo - d_hi) * (hi - lo)

    def _first_pass(self, lo: int, hi: int, grid, tested, L) -> list:
        """The grid positions of the bisection's first pass: the midpoints on its paths to the
        positions within ``_KS_GUESS`` of :meth:`_guess` (one pass then serves the whole search
        when the guess is that close and the tests fall monotonely), or the next ``_KS_AHEAD``
        steps' midpoints without a guess or when those paths take more than ``_KS_GUESS_MAX`` N.
        Which N are computed changes nothing in which N are tested."""
        guess = None if _KS_GUESS is None else self._guess(lo, hi, grid, tested, L)
        if guess is not None:
            c = int(round(guess))
            got = self._paths(lo, hi, range(max(lo + 1, c - _KS_GUESS), min(hi, c + _KS_GUESS) + 1))
            if got and len(got) <= _KS_GUESS_MAX:
                return got
        return self._ahead(lo, hi, _KS_AHEAD)

    def _search(self, kept, L, stage, sub=None):
        tested: dict = {}
        grid = ks_grid(L)
        if L in self._most_keys:  # N must leave a key out of some row (a sliding window sees fewer than L)
            grid = grid[grid < self._most_keys[L]]
        if not grid.size:
            return None, tested
        # geometric scan in increasing N, stopping at the first non-rejecting point,
        # then bisection on the grid between it and the last rejecting point
        pos = _scan_positions(grid.size)
        self._test(kept, L, [int(grid[i]) for i in pos], tested, stage, sub)
        hi = None
        lo = -1
        for i in pos:
            if tested[int(grid[i])][1] >= self.alpha:
                hi = int(i)
                break
            lo = int(i)
        n_crit = None
        if hi is not None:
            first = True
            while hi - lo > 1:
                # when the next midpoint is not computed yet: the rows of several midpoints in one
                # pass (one softmax, one sort and one context of each row serve them all): first
                # those on the paths to the guessed end (_first_pass), then those the next
                # _KS_AHEAD steps may visit; only the midpoints the bisection actually visits are
                # tested (and recorded in ks_scan.csv)
                mid = (lo + hi) // 2
                if not self._ready(kept, L, int(grid[mid]), sub):
                    pos = self._first_pass(lo, hi, grid, tested, L) if first else self._ahead(lo, hi, _KS_AHEAD)
                    first = False
                    self._compute(kept, L, [int(grid[i]) for i in pos], stage, sub)
                self._test(kept, L, [int(grid[mid])], tested, stage, sub)
                if tested[int(grid[mid])][1] >= self.alpha:
                    hi = mid
                else:
                    lo = mid
            n_crit = int(grid[hi])
        return n_crit, tested

    def tables(self) -> dict:
        crit = {k: [] for k in ("window", "L", "N_crit", "statistic", "p_value")}
        scan = {k: [] for k in ("window", "L", "N", "statistic", "p_value", "d_tilde_mean", "expectation_mean")}
        for L in sorted(self.done):
            n_crit, tested = self.done[L]
            if not tested:  # no N of the grid leaves a key out of any row (a window of one key)
                continue
            last = n_crit if n_crit is not None else max(tested)
            crit["window"].append(self.window)
            crit["L"].append(L)
            crit["N_crit"].append(np.nan if n_crit is None else float(n_crit))
            crit["statistic"].append(tested[last][0])
            crit["p_value"].append(tested[last][1])
            for n in sorted(tested):
                for k, v in zip(("window", "L", "N", "statistic", "p_value", "d_tilde_mean", "expectation_mean"),
                                (self.window, L, n, *tested[n])):
                    scan[k].append(v)
        return {"critical_n": {k: np.asarray(v) for k, v in crit.items()},
                "ks_scan": {k: np.asarray(v) for k, v in scan.items()}}


def select_x(cap, config, L):
    from attnbounds.empirical.run import select_vectors

    return select_vectors(cap, config.vectors, config.sphere, L)


def e5_default_length(lengths) -> int:
    """E5's window length: the largest L ≤ 256 (else the smallest L).

    >>> e5_default_length((32, 64, 128, 256, 512, 1024))
    256
    """
    capped = [int(L) for L in lengths if int(L) <= 256]
    return max(capped) if capped else min(int(L) for L in lengths)

