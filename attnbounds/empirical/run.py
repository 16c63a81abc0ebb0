"""The ``reproduce`` pipeline: windows → captures → metrics E1–E5 → tidy tables, cached.

One window is processed at a time (:func:`window_tables`):

* causal models (GPT-2, SmolLM2): ONE forward pass over the longest window keeps the query
  rows at positions L − 1 for every length L; the row at L − 1 sees exactly the first L
  keys, so it equals the last row of a forward pass over the first L tokens;
* bidirectional models (MiniLM): one forward pass per length, over the window's first L
  tokens, keeping the last row.

Each window's tables are written to ``DIR/cache/window_XXX.npz`` (atomically, under a key
that hashes everything that determines the numbers) as soon as they are computed, so an
interrupted run resumes where it stopped. Random draws come from generators keyed by
(seed, window, L, experiment): the numbers do not depend on what was cached. The run holds
a lock on ``DIR`` and publishes its results in one step (:mod:`attnbounds.empirical.store`).
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from attnbounds.empirical import experiments as ex
from attnbounds.empirical import store
from attnbounds.numerics.validation import check_count, check_seed

__all__ = [
    "EXPERIMENTS",
    "VECTORS",
    "DEFAULT_LENGTHS",
    "DEFAULT_TOP_N",
    "QUICK_LENGTHS",
    "QUICK_TOP_N",
    "QUICK_SETTINGS",
    "ReproduceConfig",
    "ConfigError",
    "select_vectors",
    "without_lm_head",
    "window_tables",
    "run_reproduce",
    "whatif_gradient_length",
    "WHATIF_GRADIENT_MAX_L",
]

EXPERIMENTS = ("E1", "E2", "E3", "E4", "E5")
VECTORS = ("values", "keys", "hidden")
DEFAULT_LENGTHS = (32, 64, 128, 256, 512, 1024)
DEFAULT_TOP_N = (1, 5, 10, 20, 100)
QUICK_LENGTHS = (32, 64, 128)
QUICK_TOP_N = (1, 5, 10, 20)
QUICK_SETTINGS = ex.ExperimentSettings(
    mc_samples=8, ks_grid=16, temperatures=(1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 1.0, 10.0)
)

# experiment ids of the random generators (seeded_rng(seed, window, L, id))
_RNG_MC, _RNG_KS = 1, 3
WHATIF_GRADIENT_MAX_L = 256  # the what-if gradient forms (Y, H, L, L) Jacobians: L is capped


#: The paper protocol's own options, with what --protocol last-query does instead (it refuses them).
PAPER_ONLY = {
    "--rows": "--protocol last-query reads each window's last query row, which sees every key",
    "--e5-length": "--protocol last-query runs E5 at the largest L",
    "--no-tile": "--protocol last-query takes each window's last row at each L and tiles nothing",
}
PAPER_ONLY["--tile"] = PAPER_ONLY["--no-tile"]


class ConfigError(ValueError):
    """A bad reproduce setting; the CLI prints it as a one-line usage error."""


@dataclass
class ReproduceConfig:
    """Everything that determines the numbers of a reproduce run (see ``attnbounds reproduce``)."""

    model: str
    text: str
    lengths: tuple | None = None  # None: DEFAULT_LENGTHS capped at the model's positions
    top_n: tuple | None = None  # None: DEFAULT_TOP_N (QUICK_TOP_N); per L only the N < L are used
    windows: int = 4
    experiments: tuple = EXPERIMENTS
    vectors: str = "values"
    sphere: bool = True
    seed: int = 0
    device: str = "cpu"
    normalizers: tuple = ()
    quick: bool = False
    protocol: str | None = None  # "paper" (Appendix B, every query position) or "last-query"; None: paper,
    # or last-query when what-if normalizers are asked for (they are defined on the last query row)
    rows: str = "prefix"  # paper protocol, causal models: "prefix" or "full" (masked keys with weight 0)
    e5_length: int | None = None  # paper protocol: L of E5 (None: the largest L <= 256, else the smallest L)
    tile: bool = True  # paper protocol: each shorter L also takes the windows of length L that tile the window
    settings: ex.ExperimentSettings = field(default_factory=ex.ExperimentSettings)
    model_overrides: dict = field(default_factory=dict)  # gpt2-random config fields (tests)

    def validate(self) -> "ReproduceConfig":
        """Check every field that can be checked before the model is loaded."""
        if not isinstance(self.model, str) or not self.model.strip():
            raise ConfigError("--model: must be a non-empty name")
        exps = tuple(e.strip().upper() for e in self.experiments)
        if not any(exps):
            raise ConfigError(f"--experiments: no experiment given; choose one or more of {','.join(EXPERIMENTS)}")
        bad = [e for e in exps if e not in EXPERIMENTS]
        if bad:
            raise ConfigError(f"--experiments: unknown experiment {', '.join(e or '(an empty name)' for e in bad)}; choose from {','.join(EXPERIMENTS)}")
        if self.vectors not in VECTORS:
            raise ConfigError(f"--vectors: must be one of {', '.join(VECTORS)}, got {self.vectors!r}")
        try:
            check_count(self.windows, "--windows")
            check_seed(self.seed, "--seed")
        except (TypeError, ValueError) as err:
            raise ConfigError(str(err)) from None
        ns = None
        if self.top_n is not None:
            ns = tuple(sorted(set(int(n) for n in self.top_n)))
            if not ns or any(n < 1 for n in ns):
                raise ConfigError(f"--top-n: every N must be >= 1, got {list(ns)}")
        lengths = None
        if self.lengths is not None:
            lengths = tuple(sorted(set(int(L) for L in self.lengths)))
            if not lengths or lengths[0] < 2:
                raise ConfigError(f"--lengths: every L must be >= 2, got {list(self.lengths)}")
            if ns is not None and max(ns) >= lengths[-1]:
                raise ConfigError(f"--top-n: N = {max(ns)} must be < L for some L (largest L is {lengths[-1]})")
        from attnbounds.empirical.protocol import PROTOCOLS, ROWS

        protocol = self.protocol if self.protocol is not None else ("last-query" if self.normalizers else "paper")
        if protocol not in PROTOCOLS:
            raise ConfigError(f"--protocol: must be one of {', '.join(PROTOCOLS)}, got {self.protocol!r}")
        if self.rows not in ROWS:
            raise ConfigError(f"--rows: must be one of {', '.join(ROWS)}, got {self.rows!r}")
        if protocol == "paper" and self.normalizers:
            raise ConfigError("--normalizers: the what-if normalizers run under --protocol last-query only")
        if self.e5_length is not None and (isinstance(self.e5_length, bool) or not isinstance(self.e5_length, int)
                                           or self.e5_length < 2):
            raise ConfigError(f"--e5-length: must be an integer >= 2, got {self.e5_length!r}")
        if protocol == "last-query":  # the paper protocol's own settings: refused, not silently ignored
            for flag, used in (("--rows", self.rows != "prefix"), ("--e5-length", self.e5_length is not None),
                               ("--no-tile", not self.tile)):
                if used:
                    raise ConfigError(f"{flag}: used by --protocol paper only; {PAPER_ONLY[flag]}")
        if self.e5_length is not None:  # before the model loads (the cap at its positions comes after)
            candidates = lengths if lengths is not None else (QUICK_LENGTHS if self.quick else DEFAULT_LENGTHS)
            if self.e5_length not in candidates:
                raise ConfigError(f"--e5-length: must be one of the lengths {list(candidates)}, got {self.e5_length}")
        if self.device not in ("cpu", "cuda") and not str(self.device).startswith("cuda:"):
            raise ConfigError(f"--device: must be cpu or cuda, got {self.device!r}")
        if str(self.device).startswith("cuda"):
            _check_cuda(self.device)
        return replace(self, experiments=exps, top_n=ns, lengths=lengths,
                       normalizers=tuple(self.normalizers), protocol=protocol)

    def resolve_lengths(self, max_positions: int) -> "ReproduceConfig":
        """Fill in the default lengths (capped at ``max_positions``) or check the given ones."""
        if self.lengths is None:
            base = QUICK_LENGTHS if self.quick else DEFAULT_LENGTHS
            lengths = tuple(L for L in base if L <= max_positions)
            if not lengths:
                raise ConfigError(f"--lengths: the model accepts only {max_positions} positions")
        else:
            lengths = self.lengths
            if lengths[-1] > max_positions:
                raise ConfigError(f"--lengths: L = {lengths[-1]} exceeds the model's {max_positions} positions")
        top_n = self.top_n
        if top_n is None:  # the defaults keep only the N that some L can use
            top_n = tuple(n for n in (QUICK_TOP_N if self.quick else DEFAULT_TOP_N) if n < lengths[-1]) or (1,)
        if max(top_n) >= lengths[-1]:
            raise ConfigError(f"--top-n: N = {max(top_n)} must be < L for some L (largest L is {lengths[-1]})")
        if self.e5_length is not None and self.e5_length not in lengths:
            raise ConfigError(f"--e5-length: must be one of the lengths {list(lengths)}, got {self.e5_length}")
        return replace(self, lengths=lengths, top_n=top_n)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["settings"] = self.settings.to_dict()
        return d

    def numbers_hash(self, extra: dict) -> str:
        """sha256 of every setting that changes the numbers (not the output dir)."""
        payload = json.dumps({"config": self.to_dict(), **extra}, sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()


def _check_cuda(device: str) -> None:
    import torch

    if not torch.cuda.is_available():
        why = "this torch build has no CUDA support" if torch.version.cuda is None else "no CUDA GPU is visible"
        raise ConfigError(f"--device: {device!r} is not available ({why}); use --device cpu")
    index = device.partition(":")[2]
    if index and (not index.isdigit() or int(index) >= torch.cuda.device_count()):
        raise ConfigError(f"--device: {device!r}: this machine has {torch.cuda.device_count()} CUDA device(s)")


def select_vectors(capture, vectors: str, sphere: bool, length: int) -> np.ndarray:
    """x_i for every (layer, head): (Y, H, length, d), on the unit sphere when ``sphere``.

    ``hidden`` states are per layer: the result is (Y, 1, length, dm), which the metrics
    broadcast over the layer's heads (no copy per head).
    """
    if vectors == "values":
        x = capture.values[:, :, :length]  # (Y, H, L, dh)
    elif vectors == "keys":
        x = capture.keys[:, :, :length]  # (Y, H, L, dh)
    elif vectors == "hidden":
        x = capture.hidden[:, None, :length]  # (Y, 1, L, dm), shared by the heads
    else:
        raise ValueError(f"vectors: must be one of {VECTORS}, got {vectors!r}")
    return ex.to_sphere(x) if sphere else np.asarray(x, dtype=np.float64)  # to_sphere converts to float64 once


def without_lm_head(handle):
    """The handle with its model replaced by the base model (no LM head).

    The capture reads attention and hidden states only; the LM head's logits (L × vocab,
    the largest single matmul of a small model's forward) are never used.
    """
    base = getattr(handle.model, "base_model", None)
    if base is None or base is handle.model:
        return handle
    return replace(handle, model=base)


def _table(axes: list, columns: dict) -> dict:
    """Tidy columns: the cartesian product of ``axes`` (name, values) and flattened ``columns``."""
    shape = tuple(len(v) for _, v in axes)
    grids = np.meshgrid(*[np.asarray(v) for _, v in axes], indexing="ij")
    out = {name: g.reshape(-1) for (name, _), g in zip(axes, grids)}
    for name, arr in columns.items():
        out[name] = np.broadcast_to(np.asarray(arr), shape).reshape(-1)
    return out


def _concat(tables: list) -> dict:
    if not tables:
        return {}
    return {k: np.concatenate([t[k] for t in tables]) for k in tables[0]}


def _e12_rows(w, x, ns, L, rng, settings, window, normalizer, Y, H):
    tab = ex.distance_table(w, x, ns)
    main = ex.random_expectation_main(w, x, ns)
    mc = ex.random_distance_mc(w, x, ns, rng, samples=settings.mc_samples, confidence=settings.confidence)
    axes = [("layer", range(Y)), ("head", range(H)), ("N", ns)]
    cols = {
        "normalizer": np.array(normalizer), "window": np.int64(window), "L": np.int64(L),
        "d_tilde": tab["d_tilde"], "d_random": mc["mean"], "d_random_ci_low": mc["ci_low"],
        "d_random_ci_high": mc["ci_high"], "d_random_main": main,
        "bound_reconstructed": tab["bound_reconstructed"], "bound_transcribed": tab["bound_transcribed"],
        "selected_mass": tab["selected_mass"], "d1": tab["d1"], "R": tab["R"],
    }
    return _table(axes, cols), tab


def window_tables(handle, ids, window: int, config: ReproduceConfig, capture_fn=None, stage=None) -> tuple[dict, dict]:
    """All tables of one window: ({table name: columns}, timing).

    ``capture_fn`` defaults to :func:`attnbounds.empirical.capture.capture_attention`;
    ``stage(name)`` is called as each experiment starts (progress display).
    """
    if config.protocol == "paper":
        from attnbounds.empirical.protocol import paper_window_tables

        return paper_window_tables(handle, ids, window, config, capture_fn, stage)
    if capture_fn is None:
        from attnbounds.empirical.capture import capture_attention as capture_fn
    stage = stage or (lambda name: None)
    handle = without_lm_head(handle)
    s = config.settings
    exps = set(config.experiments)
    lengths = config.lengths
    forward = 0.0
    metric = 0.0
    captures = {}
    stage("forward")
    t0 = time.perf_counter()
    if handle.causal:
        cap = capture_fn(handle, np.asarray(ids[: lengths[-1]]), [L - 1 for L in lengths])
        for k, L in enumerate(lengths):
            captures[L] = (cap, k)
    else:
        for L in lengths:
            captures[L] = (capture_fn(handle, np.asarray(ids[:L]), [L - 1]), 0)
    forward += time.perf_counter() - t0

    from attnbounds.numerics import normalizers as norms

    tables = {"distances": [], "critical_n": [], "separability": [], "gradient": [], "whatif_gradient": []}
    deltas = None  # E4: δ for every prefix length (causal models)
    x_all = None  # causal models: x_i of the whole window
    lengths = list(lengths)
    t0 = time.perf_counter()
    for L in lengths:
        cap, row = captures[L]
        Y, H = cap.n_layers, cap.n_heads
        w = cap.weights[:, :, row, :L].astype(np.float64)  # (Y, H, L): the row at L − 1
        w = w / w.sum(-1, keepdims=True)  # renormalize the float32 rounding
        logits = cap.logits[:, :, row, :L].astype(np.float64)  # (Y, H, L), all visible
        if handle.causal:  # x_i does not depend on L: project once, slice the prefix
            if x_all is None:
                x_all = select_vectors(cap, config.vectors, config.sphere, lengths[-1])
            x = x_all[..., :L, :]  # (Y, H, L, d)
        else:
            x = select_vectors(cap, config.vectors, config.sphere, L)  # (Y, H, L, d)
        ns = [n for n in config.top_n if n < L]
        # what-if: weights of every probability-valued normalizer recomputed from the captured logits
        whatif = {name: np.asarray(norms.get(name).weights(logits), dtype=np.float64)
                  for name in config.normalizers if norms.get(name).sums_to_one}
        if exps & {"E1", "E2", "E4"} and ns:
            stage(f"E1/E2 L={L}")
            rows, tab = _e12_rows(w, x, ns, L, ex.seeded_rng(config.seed, window, L, _RNG_MC), s, window, "captured", Y, H)
            tables["distances"].append(rows)
            tabs = {"captured": tab}
            for name, wn in whatif.items():
                rows_n, tabs[name] = _e12_rows(wn, x, ns, L, ex.seeded_rng(config.seed, window, L, _RNG_MC), s, window, name, Y, H)
                tables["distances"].append(rows_n)
            if "E4" in exps:
                stage(f"E4 L={L}")
                if handle.causal:  # one Gram matrix per window: δ of every prefix by a running minimum
                    if deltas is None:
                        deltas = ex.min_pairwise_distance(x_all, lengths, duplicate_tol=s.duplicate_tol)
                    delta = deltas[..., lengths.index(L)]  # (Y, H)
                else:
                    delta = ex.min_pairwise_distance(x, [L], duplicate_tol=s.duplicate_tol)[..., 0]  # (Y, H)
                mult = np.array(sorted(set(s.radius_multipliers) | {s.radius_multiplier}))
                for name, tb in tabs.items():  # δ depends only on x: the same r = c·δ for every normalizer
                    frac = ex.separability_fraction(tb["per_token"], tb["selected"], ns, delta[..., None] * mult)
                    tables["separability"].append(_table(
                        [("layer", range(Y)), ("head", range(H)), ("N", ns), ("multiplier", mult)],
                        {"window": np.int64(window), "L": np.int64(L), "delta": delta[:, :, None, None],
                         "r": (delta[..., None] * mult)[:, :, None, :], "ns_over_n": frac,
                         "normalizer": np.array(name)},
                    ))
        if "E3" in exps:
            stage(f"E3 L={L}")
            grid = ex.critical_n_grid(L, s.ks_grid)
            for name, wn in {"captured": w, **whatif}.items():
                res = ex.critical_n(wn, x, grid, ex.seeded_rng(config.seed, window, L, _RNG_KS), alpha=s.ks_alpha)
                tables["critical_n"].append(_table(
                    [("layer", range(Y)), ("head", range(H))],
                    {"window": np.int64(window), "L": np.int64(L), "n_crit": res["n_crit"],
                     "n_crit_over_L": res["n_crit"] / L, "grid_points": np.int64(grid.size),
                     "normalizer": np.array(name)},
                ))
        if config.normalizers and L == whatif_gradient_length(lengths):
            stage(f"what-if gradient L={L}")
            # captured: exact ‖diag(α) − ααᵀ‖₂ of the model's softmax; others: ‖∂α/∂l‖₂ by SVD
            gn = {"captured": ex.softmax_jacobian_norm(logits, np.array([1.0]))[..., 0]}
            for name in config.normalizers:
                gn[name] = np.linalg.norm(np.asarray(norms.get(name).jacobian(logits), dtype=np.float64), ord=2, axis=(-2, -1))
            for name, v in gn.items():
                tables["whatif_gradient"].append(_table(
                    [("layer", range(Y)), ("head", range(H))],
                    {"window": np.int64(window), "L": np.int64(L), "normalizer": np.array(name),
                     "jacobian_spectral_norm": v},
                ))
        if "E5" in exps and L == lengths[-1]:
            stage(f"E5 L={L}")
            T = np.asarray(s.temperatures)
            g = ex.fd_jacobian_norm(logits, T, s.epsilons, iterations=s.bisection_steps)  # (Y, H, nT, nε)
            g0 = ex.softmax_jacobian_norm(logits, T)  # (Y, H, nT)
            tables["gradient"].append(_table(
                [("layer", range(Y)), ("head", range(H)), ("T", T), ("epsilon", np.asarray(s.epsilons))],
                {"window": np.int64(window), "L": np.int64(L), "g": g, "g_analytic": g0[..., None],
                 "bound_spectral": (1.0 / (2.0 * T))[:, None]},
            ))
    metric += time.perf_counter() - t0
    out = {k: _concat(v) for k, v in tables.items() if v}
    return out, {"forward_seconds": forward, "metric_seconds": metric}


def whatif_gradient_length(lengths) -> int:
    """L of the what-if gradient cost: the largest L ≤ WHATIF_GRADIENT_MAX_L (else the smallest L).

    The full L × L Jacobian of every head is formed, so L is capped.

    >>> whatif_gradient_length((32, 64, 128, 256, 512, 1024))
    256
    >>> whatif_gradient_length((512, 1024))
    512
    """
    if not lengths:
        raise ValueError("lengths: expected at least one L")
    capped = [int(L) for L in lengths if int(L) <= WHATIF_GRADIENT_MAX_L]
    return max(capped) if capped else min(int(L) for L in lengths)


def run_reproduce(config: ReproduceConfig, out_dir, *, progress: bool = True, handle=None,
                  after_window=None, log=None, before_swap=None) -> dict:
    """Run the experiments and write every output into ``out_dir``; returns results.json's dict.

    Every argument that does not need the model is checked before the model is loaded
    (``--out`` writable, the model name one the loader can find, the text readable and at
    least windows × L bytes long, the normalizers usable); L against the model's positions and
    the text's length in tokens right after it loads (the directories the run created are then
    removed again). The run holds a lock on ``out_dir``
    (:class:`~attnbounds.empirical.store.OutputLocked` if another run holds it) and
    replaces the results in one step, with a ``manifest.json``.
    ``after_window(index)`` is called after each window's cache is written and
    ``before_swap()`` just before the results are swapped in (tests use them to simulate
    an interruption). Raises :class:`ConfigError` for bad settings.
    """
    from attnbounds.empirical import report
    from attnbounds.empirical.capture import capture_attention
    from attnbounds.empirical.models import load_model
    from attnbounds.empirical.text import load_text, token_windows

    config = config.validate()
    try:
        out = store.check_output_dir(out_dir)
    except store.OutputDirError as err:
        raise ConfigError(str(err)) from None
    log = log or (lambda msg: None)
    if handle is None:
        _check_model_name(config.model)  # before reading the text: a typo in --model is reported at once
    try:
        text = load_text(config.text)
    except (FileNotFoundError, ValueError, OSError) as err:
        raise ConfigError(f"--text: {' '.join(str(err).split()).removeprefix('src: ')}") from err
    _check_text_length(text, config)
    for name in config.normalizers:
        _resolve_normalizer(name)
    created = [out]  # the directories this run creates: --out and its missing parents, deepest first
    while not created[-1].exists():
        created.append(created[-1].parent)
    created.pop()
    with store.RunLock(out) as lock:
        try:
            return _run_locked(config, out, text, progress, handle, after_window, before_swap,
                               report, capture_attention, load_model, token_windows)
        except BaseException:
            # nothing written yet (a setting found bad after the model loaded): no directory left behind
            if created and lock.discard():
                for parent in created[1:]:
                    try:
                        parent.rmdir()  # only while empty
                    except OSError:
                        break
            raise


def _metric_parts(timings: list) -> dict:
    """``{"metric_parts": {part: seconds}}`` summed over the windows that report them (the paper
    protocol's: :data:`attnbounds.empirical.protocol.METRIC_PARTS` and "other"), or {} when none does
    (the last-query protocol; windows cached by a version without them)."""
    have = [t["metric_parts"] for t in timings if t.get("metric_parts")]
    if not have:
        return {}
    return {"metric_parts": {k: float(sum(p.get(k, 0.0) for p in have)) for k in have[0]}}


def _check_text_length(text: str, config: "ReproduceConfig") -> None:
    # a token is at least one byte: fewer bytes than windows × L cannot be enough (the exact
    # check needs the tokenizer, after the model loads)
    L = config.lengths[-1] if config.lengths else min(QUICK_LENGTHS)
    need = config.windows * L
    have = len(text.encode("utf-8"))
    if have < need:
        raise ConfigError(f"--text: text too short: {have} bytes cannot give {config.windows} window(s) of "
                          f"{L} tokens; use a longer text, fewer --windows or smaller --lengths")


def _resolve_normalizer(name: str):
    from attnbounds.numerics import normalizers as norms

    try:
        return norms.resolve(name, flag="--normalizers")
    except ValueError as err:
        raise ConfigError(str(err)) from None


def _model_identity(handle) -> dict:
    prov = handle.provenance or {}
    keys = ("weights_sha256", "weights_file_sha256", "state_dict_sha256", "config_sha256", "revision",
            "config_overrides", "seed")
    return {"name": handle.name, **{k: prov.get(k) for k in keys if prov.get(k) is not None}}


def _run_locked(config, out, text, progress, handle, after_window, before_swap,
                report, capture_attention, load_model, token_windows) -> dict:
    t_start = time.perf_counter()
    if handle is None:
        handle = _load_model_checked(load_model, config, progress)
    load_seconds = time.perf_counter() - t_start
    config = config.resolve_lengths(int(handle.max_positions))
    if config.rows == "full" and not handle.causal:  # a trial's --rows full on MiniLM was silently a no-op
        print(f"note: --rows full: {handle.name} is bidirectional, every row already sees all L keys, so --rows "
              "changes nothing (the report says 'all keys (bidirectional)')", file=sys.stderr, flush=True)
    text_sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    from attnbounds.empirical.text import TextTooShort

    tokens = None
    try:
        windows = token_windows(text, handle.tokenizer, config.lengths[-1], config.windows)
    except TextTooShort as err:  # (it was told from other errors by the words "too short" in its message)
        windows, tokens = [], err.tokens
    except ValueError as err:
        raise ConfigError(f"--text: {' '.join(str(err).split())}") from err
    windows = [np.asarray(getattr(w, "input_ids", w), dtype=np.int64) for w in windows]
    if len(windows) < config.windows or any(w.shape[0] < config.lengths[-1] for w in windows):
        L = config.lengths[-1]
        fit = "" if tokens is None else (f" (it gives {tokens} tokens: {tokens // L} window(s) of {L} fit)")
        raise ConfigError(f"--text: text too short for {config.windows} window(s) of {L} tokens{fit}; "
                          "use a longer text, fewer --windows or smaller --lengths")

    prov = handle.provenance or {}
    model_hash = next((prov[k] for k in ("weights_sha256", "weights_file_sha256", "state_dict_sha256") if prov.get(k)), None)
    identity = {"model": _model_identity(handle), "code": store.code_identity(config.normalizers)}
    cache = store.WindowCache(out)
    per_window, timings, cached = [], [], []
    compile_seconds = _compile_kernels(config, handle, progress)
    bar = _progress(progress, config.windows)
    try:  # an interrupt says how many of THIS run's windows are saved, for the CLI's message (it counted every
        # file in the cache: another model's, a run with other settings), also once every window is (publishing)
        _windows_loop(bar, config, windows, model_hash, text_sha, identity, cache, cached, per_window, timings,
                      handle, capture_attention, after_window)
        merged = {}
        for t in per_window:
            for name, cols in t.items():
                merged.setdefault(name, []).append(cols)
        merged = {k: _concat(v) for k, v in merged.items()}
        run_id = store.new_run_id()
        meta = {
            "model": {"name": handle.name, "sha256": model_hash, "causal": bool(handle.causal),
                      "max_positions": int(handle.max_positions), "n_layers": int(handle.n_layers),
                      "n_heads": int(handle.n_heads), "provenance": handle.provenance},
            "text": {"source": config.text, "sha256": text_sha, "characters": len(text)},
            "timing": {"model_load_seconds": load_seconds, "kernel_compile_seconds": compile_seconds,
                       "forward_seconds": float(sum(t["forward_seconds"] for t in timings)),
                       "metric_seconds": float(sum(t["metric_seconds"] for t in timings)),
                       **_metric_parts(timings),
                       "per_window": timings, "cached_windows": cached},
            "run_id": run_id,
        }
        parameters = {"config": config.to_dict(), "model": meta["model"], "text": meta["text"]}
        return store.publish(out, lambda d: report.write_outputs(d, config, merged, meta), run_id=run_id,
                             parameters=parameters, before_swap=before_swap)
    except KeyboardInterrupt as err:
        err.windows_saved = len(per_window)
        raise


def _windows_loop(bar, config, windows, model_hash, text_sha, identity, cache, cached, per_window, timings,
                  handle, capture_attention, after_window) -> None:
    """Each window's tables, from the cache where its key matches, else computed and saved;
    appended to ``per_window`` and ``timings`` as they finish (``cached``: the windows read)."""
    with bar as p:
        task = p.add_task("windows", total=config.windows) if p else None
        for i, ids in enumerate(windows):
            key = config.numbers_hash({"model_sha256": model_hash, "text_sha256": text_sha, "window": i,
                                       "ids_sha256": hashlib.sha256(ids.tobytes()).hexdigest(), **identity})
            hit = cache.load(i, key)
            if hit is not None:
                tables, timing = hit
                cached.append(i)
            else:
                def stage(name, i=i):
                    if p:
                        p.update(task, description=f"window {i + 1}/{config.windows}: {name}")
                tables, timing = window_tables(handle, ids, i, config, capture_attention, stage)
                cache.save(i, key, tables, timing)
            per_window.append(tables)
            timings.append(timing)
            if p:
                p.update(task, advance=1)
            if after_window is not None:
                after_window(i)


def _in_hf_cache(name: str, cache_dir=None) -> bool:
    """Whether hub id ``name`` has a ``config.json`` in the Hugging Face cache (never the network)."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    try:
        return isinstance(try_to_load_from_cache(name, "config.json", cache_dir=cache_dir), str)
    except (ValueError, OSError):  # not a valid repo id (HFValidationError is a ValueError)
        return False


def _check_model_name(name: str) -> None:
    """Refuse, before any loading, a ``--model`` that :func:`~attnbounds.empirical.models.load_model`
    would not find: a built-in name, a local directory, a hub id ``owner/name`` (read from
    the Hugging Face cache; downloaded only when online) and a hub id without an owner
    (``distilgpt2``) that is in the cache pass; a path-like name is left to the loader, whose
    error says which directory is missing."""
    from attnbounds.empirical.models import BUILTIN_MODELS, _looks_like_path
    from attnbounds.suggest import did_you_mean

    if name in BUILTIN_MODELS or Path(name).expanduser().is_dir() or "/" in name or _looks_like_path(name):
        return
    if _in_hf_cache(name):
        return
    raise ConfigError(
        f"--model: unknown model {name!r}{did_you_mean(name, BUILTIN_MODELS, n=2)}: not a built-in name, a local directory, or a hub id in the "
        f"Hugging Face cache; choose from {', '.join(BUILTIN_MODELS)}, a local directory holding config.json, "
        f"the weights and the tokenizer files, or a hub id 'owner/name' (read from the Hugging Face cache, "
        f"downloaded only when online)"
    )


def _compile_kernels(config, handle, progress: bool) -> float:
    """Seconds spent compiling the metric kernels before the windows: in a child process
    (:func:`attnbounds.empirical.warmup.compile_apart`) when the paper protocol meets a cold
    numba cache on a causal model; otherwise the run compiles what it needs itself, after a
    note (else the first layer's bar stands still for a minute, as if hung)."""
    from attnbounds.empirical import warmup

    if config.protocol == "paper" and handle.causal:
        if not warmup.needs_child(warmup._spec(config)):  # (no progress display opened for nothing)
            return 0.0
        with _progress(progress, None) as p:
            return warmup.compile_apart(config, causal=True, progress=p)
    if progress:
        try:
            from attnbounds.empirical.fused import kernels_cached
        except ImportError:
            return 0.0
        if not kernels_cached():
            print("note: this first run compiles the metric kernels (numba, about a minute); later runs reuse them "
                  "from numba's cache", file=sys.stderr, flush=True)
    return 0.0


def _load_model_checked(load_model, config, progress: bool = True):
    name = config.model
    _check_model_name(name)
    if not progress or not _stderr_is_terminal():  # a log gets the plain progress lines, not tqdm's bars
        _quiet_loading()
    try:
        return load_model(name, device=config.device, seed=config.seed, **config.model_overrides)
    except (FileNotFoundError, ModuleNotFoundError, OSError, ValueError) as err:
        raise ConfigError(f"--model: {' '.join(str(err).split())}") from err


def _stderr_is_terminal() -> bool:
    import sys

    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed
        return False


def _quiet_loading() -> None:
    """No progress bars while loading weights (``--no-progress``, or stderr not a terminal)."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:
        pass
    try:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    except ImportError:
        pass
    try:  # the GGUF reader (SmolLM2, Gemma) draws its own tqdm bar
        import functools

        from transformers import modeling_gguf_pytorch_utils as gguf

        if not isinstance(gguf.tqdm, functools.partial):
            gguf.tqdm = functools.partial(gguf.tqdm, disable=True)
    except (ImportError, AttributeError):
        pass


class _NoProgress:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _progress(enabled: bool, total: int):
    # a bar on a terminal; plain lines with the stage, elapsed time and ETA in a log (attnbounds.progress)
    from attnbounds.progress import progress_display

    return progress_display(enabled, transient=False) or _NoProgress()
