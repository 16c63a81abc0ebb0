"""Outputs of ``reproduce --protocol paper``: heads.csv, critical_n.csv, summaries, figures, report.md.

Files written into the run directory:

* ``heads.csv``: one row per (experiment, layer, head, window, L, N, T, ε, metric), the
  value being the mean over query positions (columns :data:`HEADS_COLUMNS`; N = −1 and
  T/ε ``nan`` where they do not apply);
* ``critical_n.csv``: E3 per (window, L): N_crit, and the KS statistic and p-value at N_crit
  (at the last N tested when no N is accepted); ``ks_scan.csv`` holds every N tested;
* ``heads_summary.csv``: the per-head capacity table, flagged against the paper's guidelines;
* figures in the paper's form, ``results.json`` (with the cross-model numbers) and ``report.md``.

The cross-model numbers (``results["paper_table"]``), each computed from heads.csv averaged
over heads and windows:

* ``d_tilde_slope``: least-squares slope of log mean d̃ against log L (E1, N = 5);
* ``e2_plateau_n``: the first N of E2's list after which mean d̃ changes by less than 10%
  up to the next N;
* ``n_crit_over_L``: median over windows of N_crit/L at the largest L;
* ``ns_saturation``: mean over heads of N_s/N at the largest N of E4, and
  ``ns_saturation_n``, the first N from which every mean stays within 0.05 of that level;
  both None when only the largest N is that close (the largest N always meets the test: a
  curve still falling by more than 0.05 per doubling was reported as saturated at its last N);
* ``e5_slope``: log-log slope of the maximum over heads of g(T, ε = 1e-3) on T ≤ 0.1, and
  ``e5_ratio``: its maximum on T ≤ 0.1 over its maximum on T ≥ 1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from attnbounds.empirical.protocol import HEADS_COLUMNS, PaperSettings
from attnbounds.fileio import write_text

__all__ = ["write_paper_outputs", "used_config", "paper_table", "table_notes", "PAPER_COLUMN", "SATURATION", "head_summary",
           "e5_above_guideline"]

#: The paper's values (GPT-2 124M), for the cross-model table.
PAPER_COLUMN = {
    "d_tilde_slope": "≈ 1 (linear in L)",
    "e2_plateau_n": "≈ 20",
    "n_crit_over_L": "≈ 0.06",
    "ns_saturation": "0.70–0.85",
    "ns_saturation_n": "≈ 16",
    "e5_slope": "≈ −1 (1/T)",
    "e5_ratio": "≈ 100",
}
#: The paper's guideline: a head whose N_s/N has dropped to 70–80% has saturated.
SATURATION = 0.80
#: E4's N for the per-head capacity table (the paper's saturation point).
HEADLINE_N = 16

CRIT_COLUMNS = ["window", "L", "N_crit", "statistic", "p_value"]
SCAN_COLUMNS = ["window", "L", "N", "statistic", "p_value", "d_tilde_mean", "expectation_mean"]
POSITION_COLUMNS = ["experiment", "L", "N", "positions", "windows"]
MULTIHEAD_COLUMNS = ["layer", "L", "N", "rows", "p", "ns_over_n", "coverage", "independent", "union_bound",
                     "worst_case", "jaccard"]
#: The least number of query positions the paper-scale runs aim for, per per-head mean.
MIN_POSITIONS = 1024
SUMMARY_COLUMNS = ["layer", "head", "ns_over_n", "ns_N", "g_T0.1", "d_tilde_over_expectation", "n_crit_over_L_model", "flags"]


def _sel(h: dict, **conds) -> np.ndarray:
    m = np.ones(len(h["value"]), dtype=bool)
    for k, v in conds.items():
        if isinstance(v, float):
            m &= np.isclose(h[k].astype(float), v, rtol=1e-9)
        else:
            m &= h[k] == v
    return m


def _curve(h: dict, key: str, **conds) -> dict:
    """Mean over (layer, head, window) of ``value`` per distinct ``key``."""
    m = _sel(h, **conds)
    out = {}
    for k in np.unique(h[key][m]):
        v = h["value"][m & (h[key] == k)]
        v = v[np.isfinite(v)]
        if v.size:
            out[k.item() if hasattr(k, "item") else k] = float(v.mean())
    return out


def _per_head(h: dict, **conds) -> np.ndarray:
    """(Y, H) mean over windows."""
    m = _sel(h, **conds)
    Y = int(h["layer"].max()) + 1
    H = int(h["head"].max()) + 1
    tot = np.zeros((Y, H))
    cnt = np.zeros((Y, H))
    np.add.at(tot, (h["layer"][m], h["head"][m]), np.nan_to_num(h["value"][m]))
    np.add.at(cnt, (h["layer"][m], h["head"][m]), np.isfinite(h["value"][m]))
    with np.errstate(invalid="ignore"):
        return np.where(cnt > 0, tot / np.maximum(cnt, 1), np.nan)


def _slope(x, y) -> float | None:
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = (x > 0) & (y > 0) & np.isfinite(y)
    if ok.sum() < 2:
        return None
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0])


def e5_above_guideline(h: dict) -> dict | None:
    """{ε: how many points of the maximum over heads of g(T, ε) lie above min{1/(4T), √2}}, the
    paper's guideline (each a counterexample to the reading C3:finite-difference); None without E5."""
    if not _sel(h, experiment="E5").any():
        return None
    return {float(eps): int(sum(v > min(1 / (4 * t), np.sqrt(2)) * (1 + 1e-12) for t, v in _max_over_heads_g(h, eps).items()))
            for eps in PaperSettings.epsilons}


def _max_over_heads_g(h: dict, eps: float) -> dict:
    """T -> max over heads of the window-mean g(T, ε)."""
    out = {}
    for T in PaperSettings.temperatures:
        m = _sel(h, experiment="E5", metric="g", epsilon=float(eps), T=float(T))
        if m.any():
            out[T] = float(np.nanmax(_per_head(h, experiment="E5", metric="g", epsilon=float(eps), T=float(T))))
    return out


def _saturation_n(e4: dict):
    """The first N of E4's curve {N: mean N_s/N} from which every mean stays within 0.05 of the
    mean at the largest N, when that is not the largest N itself (else None: not levelled off)."""
    ns = sorted(e4)
    level = e4[ns[-1]]
    for i, n in enumerate(ns[:-1]):
        if all(abs(e4[m] - level) <= 0.05 for m in ns[i:]):
            return int(n)
    return None


def paper_table(h: dict, crit: dict | None) -> dict:
    """The cross-model numbers of one run (see the module docstring); None where not measured."""
    res: dict = {k: None for k in PAPER_COLUMN}
    e1 = _curve(h, "L", experiment="E1", metric="d_tilde")
    if len(e1) >= 2:
        res["d_tilde_slope"] = _slope(list(e1), list(e1.values()))
    e2 = _curve(h, "N", experiment="E2", metric="d_tilde")
    ns = sorted(e2)
    for a, b in zip(ns, ns[1:]):
        if e2[a] > 0 and abs(e2[b] - e2[a]) / e2[a] < 0.10:
            res["e2_plateau_n"] = int(a)
            break
    if crit is not None and len(crit.get("L", [])):
        Lmax = int(np.max(crit["L"]))
        v = crit["N_crit"][crit["L"] == Lmax] / Lmax
        v = v[np.isfinite(v)]
        res["n_crit_over_L"] = float(np.median(v)) if v.size else None
    e4 = _curve(h, "N", experiment="E4", metric="ns_over_n")
    if len(e4) >= 2:  # one N has a level but nothing it saturates from
        n_sat = _saturation_n(e4)
        if n_sat is not None:
            res["ns_saturation"] = e4[max(e4)]
            res["ns_saturation_n"] = n_sat
    g = _max_over_heads_g(h, 1e-3)
    if g:
        T = np.array(sorted(g))
        gv = np.array([g[t] for t in T])
        low = T <= 0.1 + 1e-12
        res["e5_slope"] = _slope(T[low], gv[low])
        hi = T >= 1 - 1e-12
        if low.any() and hi.any() and gv[hi].max() > 0:
            res["e5_ratio"] = float(gv[low].max() / gv[hi].max())
    return res


def _no_rows(experiment: str) -> str:
    return f"{experiment} has no rows: it was not run, or no length L was above its N (it needs a key left out)"


def table_notes(h: dict, crit: dict | None, table: dict) -> dict:
    """Why each missing (None) number of :func:`paper_table` is missing: {key: reason}."""
    notes = {}

    def ran(e):
        return bool(_sel(h, experiment=e).any())

    def listed(values):
        return ", ".join(f"{v:.3g}" for v in values)

    if table.get("d_tilde_slope") is None:
        e1 = _curve(h, "L", experiment="E1", metric="d_tilde")
        notes["d_tilde_slope"] = (_no_rows("E1") if not ran("E1") else
                                  f"a slope needs E1 at two or more L with d̃ > 0 (got L = {[int(L) for L in sorted(e1)] or 'none'})")
    if table.get("e2_plateau_n") is None:
        e2 = _curve(h, "N", experiment="E2", metric="d_tilde")
        ns = sorted(e2)
        if not ran("E2"):
            notes["e2_plateau_n"] = _no_rows("E2")
        elif len(ns) < 2:
            notes["e2_plateau_n"] = f"a plateau needs E2 at two or more N below the largest L (got N = {[int(n) for n in ns] or 'none'})"
        else:
            notes["e2_plateau_n"] = (f"mean d̃ changes by 10% or more between every two consecutive N of E2's list "
                                     f"(N = {', '.join(str(int(n)) for n in ns)}: d̃ = {listed([e2[n] for n in ns])})")
    if table.get("n_crit_over_L") is None:
        if crit is None or not len(crit.get("L", [])):
            notes["n_crit_over_L"] = "E3 was not run"
        else:
            notes["n_crit_over_L"] = (f"at the largest L = {int(np.max(crit['L']))} no window's KS test accepted any N of "
                                      "the grid (N_crit undefined; see critical_n.csv and ks_scan.csv)")
    e4 = _curve(h, "N", experiment="E4", metric="ns_over_n")
    for key in ("ns_saturation", "ns_saturation_n"):
        if table.get(key) is None:
            ns = sorted(e4)
            notes[key] = (_no_rows("E4") if not ran("E4") else "E4 gave no finite per-head N_s/N" if not e4 else
                          f"a saturation needs E4 at two or more N below the largest L (got N = {[int(n) for n in ns]})"
                          if len(ns) < 2 else
                          f"mean N_s/N has not levelled off by the largest N: no N before it is within 0.05 of its value "
                          f"(N = {', '.join(str(int(n)) for n in ns)}: N_s/N = {listed([e4[n] for n in ns])})")
    for key in ("e5_slope", "e5_ratio"):
        if table.get(key) is None:
            if not ran("E5"):
                notes[key] = "E5 was not run"
            else:
                T = sorted(_max_over_heads_g(h, 1e-3))
                need = ("two or more T <= 0.1 with g > 0" if key == "e5_slope"
                        else "a T <= 0.1 and a T >= 1 with g > 0 at T >= 1")
                notes[key] = f"needs {need} (got T = {listed(T) or 'none'})"
    return notes


def head_summary(h: dict, crit: dict | None) -> dict:
    """The per-head capacity table: N_s/N at N = 16 (or E4's largest N below it), g at T = 0.1, d̃/expectation."""
    cols = {c: [] for c in SUMMARY_COLUMNS}
    if not len(h["layer"]):  # no per-head experiment ran (E3 alone)
        return {k: np.asarray(v) for k, v in cols.items()}
    Y = int(h["layer"].max()) + 1
    H = int(h["head"].max()) + 1
    e4n = sorted(set(h["N"][_sel(h, experiment="E4")].tolist()))
    nN = max([n for n in e4n if n <= HEADLINE_N], default=None)
    ns = _per_head(h, experiment="E4", metric="ns_over_n", N=nN) if nN is not None else np.full((Y, H), np.nan)
    gT = _per_head(h, experiment="E5", metric="g", T=0.1, epsilon=1e-3) if _sel(h, experiment="E5").any() else np.full((Y, H), np.nan)
    e1L = h["L"][_sel(h, experiment="E1")]
    if e1L.size:
        Lm = int(e1L.max())
        ratio = _per_head(h, experiment="E1", metric="d_tilde", L=Lm) / _per_head(h, experiment="E1", metric="expectation", L=Lm)
    else:
        ratio = np.full((Y, H), np.nan)
    nc = None
    if crit is not None and len(crit.get("L", [])):
        Lmax = int(np.max(crit["L"]))
        v = crit["N_crit"][crit["L"] == Lmax] / Lmax
        v = v[np.isfinite(v)]
        nc = float(np.median(v)) if v.size else None
    bound = min(1 / (4 * 0.1), np.sqrt(2))
    for y in range(Y):
        for k in range(H):
            flags = []
            if nN is None or nN < 2:  # E4 not run, or only N = 1, where N_s/N is 1 for every head
                flags.append("ns-not-judged")  # ("ok" read as healthy: a trial's --lengths 2 and E1-only runs)
            elif np.isfinite(ns[y, k]) and ns[y, k] <= SATURATION:
                flags.append("saturated")
            elif not np.isfinite(ns[y, k]):  # E4 ran, but no row of this head leaves a key
                flags.append("no-ns")  # out at N (a sliding window of at most N keys): not judged
            if not np.isfinite(gT[y, k]):
                flags.append("g-not-judged")  # E5 not run (or no value at T = 0.1)
            elif gT[y, k] >= 0.5 * bound:
                flags.append("gradient-near-bound-at-T0.1")
            cols["layer"].append(y)
            cols["head"].append(k)
            cols["ns_over_n"].append(float(ns[y, k]))
            cols["ns_N"].append(-1 if nN is None else int(nN))
            cols["g_T0.1"].append(float(gT[y, k]))
            cols["d_tilde_over_expectation"].append(float(ratio[y, k]))
            cols["n_crit_over_L_model"].append(np.nan if nc is None else nc)
            cols["flags"].append(";".join(flags) or "ok")
    return {k: np.asarray(v) for k, v in cols.items()}


def positions_table(pos: dict | None) -> dict | None:
    """Query positions per per-head mean, over all windows: (experiment, L, N) -> the sum over
    windows of each window's least count over layers and heads."""
    if pos is None or not len(pos.get("L", [])):
        return None
    keys = sorted(set(zip(pos["experiment"].tolist(), pos["L"].tolist(), pos["N"].tolist())))
    out = {c: [] for c in POSITION_COLUMNS}
    for e, L, N in keys:
        m = (pos["experiment"] == e) & (pos["L"] == L) & (pos["N"] == N)
        for c, v in (("experiment", e), ("L", L), ("N", N), ("positions", int(pos["positions"][m].sum())),
                     ("windows", int(np.unique(pos["window"][m]).size))):
            out[c].append(v)
    return {k: np.asarray(v) for k, v in out.items()}


def multihead_table(mh: dict | None) -> dict | None:
    """H1's probe per layer, over all windows: means over the query rows (Jaccard over the rows where defined)."""
    if mh is None or not len(mh.get("layer", [])):
        return None
    out = {c: [] for c in MULTIHEAD_COLUMNS}
    for y in sorted(set(mh["layer"].tolist())):
        m = mh["layer"] == y
        rows = float(mh["rows"][m].sum())
        out["layer"].append(int(y))
        out["L"].append(int(mh["L"][m][0]))
        out["N"].append(int(mh["N"][m][0]))
        out["rows"].append(int(rows))
        for c in ("p", "ns_over_n", "coverage", "independent", "union_bound", "worst_case"):
            out[c].append(float(mh[c][m].sum() / rows) if rows else np.nan)
        jr = float(mh["jaccard_rows"][m].sum())
        out["jaccard"].append(float(mh["jaccard"][m].sum() / jr) if jr else np.nan)
    return {k: np.asarray(v) for k, v in out.items()}


def rows_label(rows: str, causal: bool) -> str:
    """Which keys a query row takes: ``prefix``/``full`` for a causal model; an encoder sees all keys.

    >>> rows_label("prefix", False)
    'all keys (bidirectional)'
    """
    return rows if causal else "all keys (bidirectional)"


def _legend(ax, **kw) -> None:
    """A legend only where something is labelled (an empty one makes matplotlib warn)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kw)


def _log_axes(ax, xticks=None) -> None:
    """Both axes logarithmic, labelled in plain numbers (4, 0.1, 1000) instead of
    matplotlib's default 4×10^0; with ``xticks``, the x ticks are exactly those values."""
    from matplotlib.ticker import FuncFormatter, LogFormatter, NullFormatter

    ax.set_xscale("log")
    ax.set_yscale("log")
    plain = FuncFormatter(lambda v, _pos: f"{v:g}")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(plain)
        axis.set_minor_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(1, 0.4)))
    if xticks is not None:
        ticks = sorted(set(float(v) for v in xticks))
        ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
        ax.xaxis.set_minor_formatter(NullFormatter())


def _figures(out: Path, h: dict, crit: dict | None, config, causal: bool = True, tables_extra: dict | None = None,
             above: dict | None = None) -> list:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from attnbounds.empirical.report import _save

    plt.rcParams["svg.hashsalt"] = "attnbounds"
    files = []
    rows = f"rows: {rows_label(config.rows, causal)}"
    e1 = {m: _curve(h, "L", experiment="E1", metric=m) for m in ("d_tilde", "expectation", "bound")}
    e2 = {m: _curve(h, "N", experiment="E2", metric=m) for m in ("d_tilde", "expectation", "bound")}
    if e1["d_tilde"] or e2["d_tilde"]:
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        e2L = h["L"][_sel(h, experiment="E2")]
        e2_title = f"E2: L = {int(e2L.max())}" if e2L.size else "E2"
        for ax, data, xl, title in ((axes[0], e1, "L", "E1: N = 5"), (axes[1], e2, "N", e2_title)):
            for m, style in (("d_tilde", "o-"), ("expectation", "s--"), ("bound", "^:")):
                if data[m]:
                    ax.plot(list(data[m]), list(data[m].values()), style, label={"d_tilde": "true d̃", "expectation": "T1(ii) expectation", "bound": "T1(i) bound"}[m])
            _log_axes(ax, xticks=[k for m in data.values() for k in m])
            ax.set_xlabel(xl)
            ax.set_ylabel("d̃: mean over heads of the mean over t")
            ax.set_title(f"{title} ({rows})")
            _legend(ax, fontsize=8)
        files += _save(fig, out, "e1_e2_distance")
        plt.close(fig)
    if crit is not None and len(crit.get("L", [])):
        fig, ax = plt.subplots(figsize=(5, 4))
        Ls = np.asarray(crit["L"], float)
        nc = np.asarray(crit["N_crit"], float)
        ok = np.isfinite(nc)
        ax.plot(Ls[ok], nc[ok], "o", label="N_crit (per window)")
        if (~ok).any():  # (a legend entry for nothing plotted misleads)
            ax.plot(Ls[~ok], Ls[~ok], "x", color="gray", label="never accepted (plotted at L)")
        grid = np.unique(Ls)
        ax.plot(grid, 0.06 * grid, "k--", label="0.06·L (paper)")
        _log_axes(ax, xticks=grid)
        ax.set_xlabel("L")
        ax.set_ylabel("N_crit")
        ax.set_title(f"E3: KS over per-head means (α = {config.settings.ks_alpha})\n{rows}")
        _legend(ax, fontsize=8)
        files += _save(fig, out, "e3_critical_n")
        plt.close(fig)
    if _sel(h, experiment="E4").any():
        ns = sorted(set(h["N"][_sel(h, experiment="E4")].tolist()))
        data = [_per_head(h, experiment="E4", metric="ns_over_n", N=n).reshape(-1) for n in ns]
        def mean_of(metric, n):  # NaN (no point drawn) where no head has a value (a sliding window of <= N keys)
            v = _per_head(h, experiment="E4", metric=metric, N=n)
            return float(np.mean(v[np.isfinite(v)])) if np.isfinite(v).any() else np.nan

        lo = [mean_of("lower_bound", n) for n in ns]
        hi = [mean_of("upper_bound", n) for n in ns]
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.boxplot([d[np.isfinite(d)] for d in data], positions=range(len(ns)), widths=0.5)
        ax.plot(range(len(ns)), np.clip(lo, 0, 1), "v--", color="tab:blue", label="T2 lower (Markov), mean")
        ax.plot(range(len(ns)), hi, "^--", color="tab:red", label="T2 upper (McDiarmid), mean")
        ax.axhspan(0.70, 0.85, color="tab:green", alpha=0.15, label="paper: 0.70–0.85")
        ax.set_xticks(range(len(ns)), [str(n) for n in ns])
        ax.set_xlabel("N")
        ax.set_ylabel("per-head N_s/N")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"E4: separability, r = min non-selected distance\n{rows}")
        _legend(ax, fontsize=7, loc="lower left")
        files += _save(fig, out, "e4_separability")
        plt.close(fig)
    if _sel(h, experiment="E5").any():
        fig, ax = plt.subplots(figsize=(6, 4))
        for eps in PaperSettings.epsilons:
            g = _max_over_heads_g(h, eps)
            ax.plot(list(g), list(g.values()), "o-", label=f"max over heads, ε = {eps:g}")
        above = e5_above_guideline(h) if above is None else above
        hits = [f"{k} at ε = {e:g}" for e, k in above.items() if k]
        if hits:  # each such point is a counterexample to the reading C3:finite-difference (a caption
            # below the axes: inside them it covered points and ran past the frame)
            import textwrap

            fig.text(0.02, 0.01, textwrap.fill("points above min{1/(4T), √2}, each a counterexample to "
                                               "C3:finite-difference: " + ", ".join(hits), 95),
                     fontsize=7, va="bottom")
        T = np.logspace(-3, 1, 100)
        ax.plot(T, np.minimum(1 / (4 * T), np.sqrt(2)), "k--", label="min{1/(4T), √2}")
        ax.plot(T, 1 / (2 * T), "k:", label="1/(2T) (sharp)")
        _log_axes(ax)
        ax.set_xlabel("T")
        ax.set_ylabel("g(T, ε)")
        ax.set_title(f"E5: gradient sensitivity\n{rows}")
        _legend(ax, fontsize=7)
        files += _save(fig, out, "e5_gradient", rect=(0, 0.1, 1, 1) if hits else None)
        plt.close(fig)
    mh = multihead_table(tables_extra.get("multihead")) if tables_extra else None
    if mh is not None:
        fig, ax = plt.subplots(figsize=(6, 4))
        y = mh["layer"]
        ax.plot(y, mh["coverage"], "o-", label="measured coverage |∪ S_h| / |U|")
        ax.plot(y, mh["independent"], "s--", label="1 − Π(1 − p_h) (H1, independent heads)")
        ax.plot(y, mh["union_bound"], "^:", color="gray", label="union bound min{1, Σ p_h}")
        ax.plot(y, mh["worst_case"], "v:", color="gray", label="worst case max p_h")
        ax.set_xlabel("layer")
        ax.set_ylabel("fraction of the heads' top set U")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"H1: multi-head coverage (N = {int(mh['N'][0])}, L = {int(mh['L'][0])})\n{rows}")
        _legend(ax, fontsize=7)
        files += _save(fig, out, "h1_coverage")
        plt.close(fig)
    return files


def _fmt(v, spec=".3g"):
    return "—" if v is None or (isinstance(v, float) and not np.isfinite(v)) else format(v, spec)


def used_config(config) -> dict:
    """The settings a paper-protocol run reads, for ``results.json``: ``config.to_dict()``
    without those of ``--protocol last-query`` alone (``top_n``, ``normalizers`` and every
    experiment setting but ``ks_alpha``). The resume cache's key still hashes every setting.

    >>> from attnbounds.empirical.run import ReproduceConfig
    >>> d = used_config(ReproduceConfig(model="gpt2-random", text="t.txt"))
    >>> "top_n" in d, "normalizers" in d, d["settings"], d["rows"]
    (False, False, {'ks_alpha': 0.01}, 'prefix')
    """
    d = config.to_dict()
    for key in ("top_n", "normalizers"):
        d.pop(key, None)
    d["settings"] = {"ks_alpha": d["settings"]["ks_alpha"]}
    return d


def _grid_points(values) -> np.ndarray:
    """N_crit as written in ``critical_n.csv``: an integer, or ``nan`` where no N was accepted."""
    return np.array([str(int(v)) if np.isfinite(v) else "nan" for v in np.asarray(values, dtype=np.float64)],
                    dtype=object)


_PART_NAMES = {"rows": "E1/E2/E4 and E3's scan rows", "e3_search": "E3's search", "e5": "E5", "h1": "H1",
               "claim_forms": "the claims' forms (and loading the compiled kernels)", "other": "other"}


def _parts_text(timing: dict) -> str:
    """'; metrics by part: ...' from ``timing["metric_parts"]`` (nothing without it).

    >>> _parts_text({"metric_parts": {"rows": 12.04, "e5": 1.5, "other": 0.26}})
    "; metrics by part: E1/E2/E4 and E3's scan rows 12.0 s, E5 1.5 s, other 0.3 s"
    """
    parts = timing.get("metric_parts") or {}
    if not parts:
        return ""
    return "; metrics by part: " + ", ".join(f"{_PART_NAMES.get(k, k)} {v:.1f} s" for k, v in parts.items())


def write_paper_outputs(out: Path, config, tables: dict, meta: dict) -> dict:
    """Write the paper protocol's files into ``out``; return results.json's dict."""
    from attnbounds.jsonio import write_json
    from attnbounds.empirical.report import _versions, stamped, write_csv

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    h = tables["heads"]
    crit = tables.get("critical_n")
    files = []
    write_csv(out / "heads.csv", h, HEADS_COLUMNS)
    files.append("heads.csv")
    if crit is not None and len(crit.get("L", [])):
        write_csv(out / "critical_n.csv", {**crit, "N_crit": _grid_points(crit["N_crit"])}, CRIT_COLUMNS)
        write_csv(out / "ks_scan.csv", tables["ks_scan"], SCAN_COLUMNS)
        files += ["critical_n.csv", "ks_scan.csv"]
    summary = head_summary(h, crit)
    write_csv(out / "heads_summary.csv", summary, SUMMARY_COLUMNS)
    files.append("heads_summary.csv")
    positions = positions_table(tables.get("positions"))
    if positions is not None:
        write_csv(out / "positions.csv", positions, POSITION_COLUMNS)
        files.append("positions.csv")
    multihead = multihead_table(tables.get("multihead"))
    if multihead is not None:
        write_csv(out / "multihead.csv", multihead, MULTIHEAD_COLUMNS)
        files.append("multihead.csv")
    table = paper_table(h, crit)
    notes = table_notes(h, crit, table)
    causal = bool(meta["model"].get("causal", True))
    above = e5_above_guideline(h)
    figures = _figures(out, h, crit, config, causal, tables, above)
    timing = meta["timing"]
    results = {
        "config": used_config(config),
        "protocol": {"name": "paper", "rows": rows_label(config.rows, causal), "vectors": config.vectors, "sphere": config.sphere,
                     "ks_alpha": config.settings.ks_alpha, "e1_n": list(PaperSettings.e1_n), "e2_n": list(PaperSettings.e2_n),
                     "e4_n": list(PaperSettings.e4_n), "temperatures": list(PaperSettings.temperatures),
                     "epsilons": list(PaperSettings.epsilons),
                     "claim_forms": next((w.get("claim_forms") for w in timing.get("per_window", []) if w.get("claim_forms")), {})},
        "versions": _versions(),
        "model": meta["model"],
        "text": meta["text"],
        "seed": config.seed,
        "timing": timing,
        "paper_table": table,
        "paper_column": PAPER_COLUMN,
        "positions": None if positions is None else {f"{e}/L={L}/N={N}": int(v) for e, L, N, v in zip(
            positions["experiment"].tolist(), positions["L"].tolist(), positions["N"].tolist(), positions["positions"].tolist())},
        "multihead": None if multihead is None else {k: np.asarray(v).tolist() for k, v in multihead.items()},
        "e4_sides": e4_sides(h),
        "e5_above_guideline": None if above is None else {f"{e:g}": k for e, k in above.items()},
        "paper_table_notes": notes,
        "headline": {k: {"measured": _fmt(v), "paper": PAPER_COLUMN[k], **({"why": notes[k]} if k in notes else {})}
                     for k, v in table.items()},
        "files": sorted(files + figures),
    }
    results = stamped(results, meta)
    write_json(results, str(out / "results.json"))
    _report(out, results, summary, figures, positions, multihead)
    return results


def e4_sides(h: dict) -> dict | None:
    """E4's per-head means (heads.csv rows: layer, head, window, N) against Theorem 2's two sides
    in the same rows: how many N_s/N fall below the lower (Markov) side or above the upper
    (McDiarmid) side, and the largest gap below. None when E4 did not run.

    >>> h = {k: np.array(v) for k, v in dict(experiment=["E4"] * 6, metric=["ns_over_n", "lower_bound", "upper_bound"] * 2,
    ...      layer=[0] * 6, head=[0, 0, 0, 1, 1, 1], window=[0] * 6, L=[8] * 6, N=[2] * 6,
    ...      value=[0.5, 0.6, 0.9, 1.0, 0.2, 0.95]).items()}
    >>> e4_sides(h)["below_lower"], e4_sides(h)["above_upper"], e4_sides(h)["largest_gap_below"]["layer"]
    (1, 1, 0)
    """
    m = h["experiment"] == "E4"
    if not m.any():
        return None
    keys = ("layer", "head", "window", "L", "N")
    rows, vals = [], []
    for metric in ("ns_over_n", "lower_bound", "upper_bound"):  # each metric's rows in one order of the keys
        s = m & (h["metric"] == metric)
        order = np.lexsort(tuple(h[k][s] for k in reversed(keys)))
        rows.append(np.stack([h[k][s][order] for k in keys]))
        vals.append(h["value"][s][order].astype(float))
    if not (rows[0].shape == rows[1].shape == rows[2].shape and (rows[0] == rows[1]).all() and (rows[0] == rows[2]).all()):
        raise ValueError("heads: E4's N_s/N and Theorem 2's sides are not in the same rows")
    ns, lo, up = vals
    ok = np.isfinite(ns) & np.isfinite(lo) & np.isfinite(up)
    below, above = ok & (ns < lo), ok & (ns > up)
    worst = None
    if below.any():
        i = int(np.argmax(np.where(below, lo - ns, -np.inf)))
        worst = {**{k: int(v) for k, v in zip(keys, rows[0][:, i])}, "ns_over_n": float(ns[i]), "lower_bound": float(lo[i])}
    return {"means": int(ok.sum()), "below_lower": int(below.sum()), "above_upper": int(above.sum()),
            "largest_gap_below": worst}


def windows_needed(positions, windows: int) -> int | None:
    """About how many windows bring every row of ``positions`` (query positions per mean, at
    ``windows`` windows) to :data:`MIN_POSITIONS`; positions grow in proportion to the windows.
    None when no row has a position.

    >>> windows_needed([28, 56, 2048], 1), windows_needed([512, 1024], 2), windows_needed([0], 1)
    (37, 4, None)
    """
    pos = np.asarray(positions, float)
    pos = pos[pos > 0]
    if not pos.size:
        return None
    return int(np.ceil(windows * MIN_POSITIONS / float(pos.min())))


def _counted_rows(results: dict) -> str:
    """Which query rows a mean at N counts: an encoder's every row (each sees all L keys); a
    causal row t only when t > N (with ``--rows full``, every row)."""
    if not results["model"].get("causal", True):
        return "every row: an encoder's row sees all L keys"
    if results["protocol"]["rows"] == "full":
        return "every row, the masked keys with weight 0"
    return "the rows t > N: a causal row t sees t keys"


#: What the kernel's names of the claim forms a run used stand for (:func:`attnbounds.empirical.protocol.claim_forms`).
_FORM_TEXT = {
    ("T1i", "d1_pair"): "E1/E2's bound is `T1i:reconstructed`'s right side with d_1 = max_{i∉I_N, j∈I_N} ‖x_i − x_j‖",
    ("T1i", "d1_norm"): "E1/E2's bound is `T1i:reconstructed`'s right side with d_1 = max_{i∉I_N} ‖x_i‖",
    ("T1ii", "main"): "the expectation is `T1ii:reconstructed`'s right side",
}


def _forms_text(forms: dict) -> str:
    """The claim forms a run used, in words (checked on the run's own rows)."""
    if not forms:
        return "no claim form was needed"
    parts = [_FORM_TEXT.get((k, v), f"{k}: form {v!r}") for k, v in sorted(forms.items())]
    return "; ".join(parts) + " (each checked on rows of this run)"


def _report(out: Path, results: dict, summary: dict, figures: list, positions=None, multihead=None) -> None:
    from attnbounds.empirical.report import timing_note

    cfg = results["config"]
    t = results["timing"]
    names = {"d_tilde_slope": "log-log slope of d̃ in L (E1, N = 5)", "e2_plateau_n": "N where E2 plateaus",
             "n_crit_over_L": "N_crit / L at the largest L (E3)", "ns_saturation": "N_s/N saturation level (E4)",
             "ns_saturation_n": "N where N_s/N saturates (E4)", "e5_slope": "slope of max-over-heads g(T), T ≤ 0.1 (E5)",
             "e5_ratio": "g at T ≤ 0.1 / g at T ≥ 1 (E5)"}
    name = results["model"]["name"]
    lines = [f"# attnbounds reproduce (paper protocol): {name}", "",
             # (its lengths and windows are on the next line: "--quick --lengths 64,256 --windows 2" was called
             # "short lengths, one window" here)
             *(["- a `--quick` run: a smoke test, not the paper's scale"] if cfg.get("quick") else []),
             *(["- gpt2-random has GPT-2-small's shape with random weights: the control, not the paper's trained GPT-2"]
               if name == "gpt2-random" else []),
             f"- text `{results['text']['source']}`; lengths {cfg['lengths']}, windows {cfg['windows']}, rows `{results['protocol']['rows']}`,"
             f" vectors {cfg['vectors']} ({'unit sphere' if cfg['sphere'] else 'raw'}), seed {cfg['seed']}, KS α {results['protocol']['ks_alpha']}",
             f"- every metric at every query position t, averaged over t per head; {_forms_text(results['protocol']['claim_forms'])}",
             f"- forward {t['forward_seconds']:.1f} s, metrics {t['metric_seconds']:.1f} s" + timing_note(t)
             + _parts_text(t), "",
             "## Against the paper", "", "| quantity | measured | paper |", "|---|---|---|"]
    for k, v in results["paper_table"].items():
        why = results.get("paper_table_notes", {}).get(k)
        lines.append(f"| {names[k]} | {_fmt(v)}{f' ({why})' if why else ''} | {PAPER_COLUMN[k]} |")
    n = len(summary["layer"])
    sat = int(sum("saturated" in f for f in summary["flags"]))
    if n and int(summary["ns_N"][0]) == 1:
        capacity = ("N_s/N: E4's only N at or below 16 is N = 1, where N_s/N is 1 for every head (the top token is "
                    "always inside its own ball), so no head is judged (flag `ns-not-judged`); give longer --lengths.")
    elif n and int(summary["ns_N"][0]) >= 0:
        capacity = (f"N_s/N at N = {summary['ns_N'][0]} (E4, at the largest L); a head at or below {SATURATION:.2f} "
                    f"has saturated its geometric capacity (paper: 70–80%). {sat} of {n} heads are flagged saturated.")
        unjudged = int(sum("no-ns" in f for f in summary["flags"]))
        if unjudged:
            capacity += (f" {unjudged} of {n} heads have no N_s/N at N = {summary['ns_N'][0]} (flag `no-ns`): none of "
                         "their rows sees more keys than that (a sliding window), so they are not judged.")
    elif n:
        capacity = ("N_s/N: E4 was not run, so no head is judged (flag `ns-not-judged`; `heads_summary.csv` has "
                    "N_s/N NaN and ns_N = -1).")
    else:
        capacity = "No per-head experiment was run."
    lines += ["", "## Per-head capacity (the paper's practical diagnostics)", "",
              f"{capacity} g at T = 0.1 (ε = 1e-3) is flagged "
              "when it reaches half of the paper's guideline min{1/(4T), √2} = 1.41 (Corollary 3 as the paper "
              "states it; `attnbounds check C3` falsifies it as a bound, and the finite-difference cap that holds, "
              "`C3:reconstructed`, is min{1/(2T), √2/ε} = 5 here). d̃ / expectation is E1's (N = 5) at its largest "
              "L. The full table is `heads_summary.csv`.", "",
              "| layer | head | N_s/N | g(T=0.1) | d̃ / expectation | flags |", "|---|---|---|---|---|---|"]
    order = np.argsort(np.nan_to_num(summary["ns_over_n"], nan=2.0))
    for i in order[:24]:
        lines.append(f"| {summary['layer'][i]} | {summary['head'][i]} | {_fmt(float(summary['ns_over_n'][i]))} | "
                     f"{_fmt(float(summary['g_T0.1'][i]))} | {_fmt(float(summary['d_tilde_over_expectation'][i]))} | {summary['flags'][i]} |")
    if n > 24:
        lines.append(f"| … | {n - 24} more heads in `heads_summary.csv` | | | | |")
    above = results.get("e5_above_guideline")
    if above is not None:  # (the E5 figure's caption said it; the report did not: trial 133)
        hits = [f"{k} at ε = {e}" for e, k in above.items() if k]
        lines += ["", "E5 against the paper's guideline min{1/(4T), √2}: " + (
            f"points of the maximum over heads of g(T, ε) above it: {', '.join(hits)}; each is a counterexample to "
            "`C3:finite-difference` (`attnbounds check C3`)." if hits else
            "no point of the maximum over heads of g(T, ε) lies above it, at any ε.")]
    sides = results.get("e4_sides")
    if sides:
        w = sides["largest_gap_below"]
        gap = ("" if w is None else f" (the largest gap: layer {w['layer']}, head {w['head']}, window {w['window']}, "
               f"N = {w['N']}: {_fmt(w['ns_over_n'])} against {_fmt(w['lower_bound'])})")
        lines += ["", f"E4 against Theorem 2's sides (`lower_bound`, `upper_bound` in `heads.csv`): N_s/N is below the "
                  f"lower (Markov) side in {sides['below_lower']} of {sides['means']} per-head means{gap}, and above "
                  f"the upper (McDiarmid) side in {sides['above_upper']}. The sides are the theorem's shapes at each "
                  "head's weights, with ξ_j read as σ_j = (Σ_{k∈I_N∖j} α_k²)^{1/2}, not bounds checked for this count: "
                  "the Markov side bounds the selected-only count, not the paper's N_s, and with σ_j ≥ ξ_j the "
                  "McDiarmid side lies below T2's reconstructed bound. So a mean outside them is a measurement on this "
                  "model, not a counterexample to the claim (whose readings are judged on its own page, T2)."]
    if positions is not None:
        few = int(np.sum(positions["positions"] < MIN_POSITIONS))
        if few:
            need = windows_needed(positions["positions"], cfg["windows"])
            short = (f"{few} of {len(positions['L'])} rows are below {MIN_POSITIONS}, the least the paper-scale runs aim "
                     f"for: those means are noisier than the paper's. Positions grow in proportion to the windows"
                     + (f"; about --windows {need} would bring every row to {MIN_POSITIONS}." if need else "."))
        else:
            short = f"Every row reaches {MIN_POSITIONS}, the least the paper-scale runs aim for."
        lines += ["", "## Query positions per mean", "",
                  f"Each per-head mean is over this many query positions (the least over layers and heads, summed over "
                  f"windows; a window of length L < the longest also takes the windows of length L that tile it). "
                  f"{short} E3's means at N rest on the same "
                  f"windows as E1's ({_counted_rows(results)}).", "",
                  "| experiment | L | N | positions | windows |", "|---|---|---|---|---|"]
        for i in range(len(positions["L"])):
            if positions["experiment"][i] == "E5" and i and positions["experiment"][i - 1] == "E5":
                continue
            lines.append(f"| {positions['experiment'][i]} | {positions['L'][i]} | "
                         f"{'—' if positions['N'][i] < 0 else positions['N'][i]} | {positions['positions'][i]} | {positions['windows'][i]} |")
    if multihead is not None:
        lines += ["", "## H1: multi-head coverage of the top set", "",
                  f"At each query position (L = {int(multihead['L'][0])}, N = {int(multihead['N'][0])}), each head's "
                  "distinguishable tokens S_h (E4's radius, just inside it; `numerics.selection.distinguishable_mask`) "
                  "within the union U of the heads' top sets; p_h = |S_h|/|U|. `coverage` is |∪ S_h|/|U|, `1 − Π(1 − p_h)` "
                  "the Discussion's value for independent heads (`claims.multihead.mask_sides`), "
                  "Jaccard the mean pairwise overlap (`numerics.coverage.head_overlap`). Means over positions.", "",
                  "| layer | positions | mean N_s/N | mean p_h | coverage | 1 − Π(1 − p_h) | union bound | worst case | Jaccard |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for i in range(len(multihead["layer"])):
            lines.append(f"| {multihead['layer'][i]} | {multihead['rows'][i]} | {_fmt(float(multihead['ns_over_n'][i]))} | "
                         f"{_fmt(float(multihead['p'][i]))} | {_fmt(float(multihead['coverage'][i]))} | "
                         f"{_fmt(float(multihead['independent'][i]))} | {_fmt(float(multihead['union_bound'][i]))} | "
                         f"{_fmt(float(multihead['worst_case'][i]))} | {_fmt(float(multihead['jaccard'][i]))} |")
        below = int(np.sum(multihead["coverage"] < multihead["independent"]))
        lines += ["", f"In {below} of {len(multihead['layer'])} layers the heads cover less than independent heads would "
                  "(their sets overlap more than chance)."]
    lines += ["", "## Figures", ""] + [f"![{f[:-4]}]({f})" for f in figures if f.endswith(".png")]
    lines += ["", "Tables: " + ", ".join(f"`{f}`" for f in results["files"] if f.endswith(".csv")), ""]
    write_text(out / "report.md", "\n".join(lines) + "\n")
