"""The claims under every normalizer: the normalizer × reading verdict matrix, and its plot.

Each cell is the verdict of a claim's own reading judged under one normalizer
(:func:`attnbounds.engine.run.judge_under`, through :meth:`Reading.under
<attnbounds.claims.base.Reading.under>`), so a cell means what the same verdict means
everywhere else and uses the claim's own reading id: ``L1:reconstructed`` under ``ssmax``
is ``falsified`` with its counterexample. This module is only the loop over normalizers
(:func:`run_matrix`, behind ``attnbounds check --matrix``) and the picture
(:func:`plot_matrix`); ``attnbounds check --normalizer NAME`` is one column of it.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from attnbounds.fileio import atomic_write

__all__ = ["run_matrix", "plot_matrix"]


def run_matrix(
    normalizers=None,
    ids=None,
    *,
    quick: bool = False,
    seed: int = 0,
    examples: int | None = None,
    claims=None,
    progress: Callable[[str, int, int], None] | None = None,
    budget=None,
) -> dict:
    """Judge the selected readings under each normalizer (default: every registered one with
    role ``"attention"``, :func:`attnbounds.numerics.normalizers.names`).

    Returns ``{"normalizers": [...], "ids": [...], "verdicts": {name: {id: verdict}},
    "rows": {name: [row dicts]}, "seconds": float}``. ``ids``, ``claims``, ``quick``,
    ``examples``, ``seed`` and ``budget`` mean what they mean for :func:`attnbounds.engine.run.check`.
    """
    from attnbounds.engine import check
    from attnbounds.numerics import normalizers as nz

    if normalizers is None:
        names = list(nz.names(role="attention"))
    elif isinstance(normalizers, str):
        names = [normalizers]
    else:
        names = list(normalizers)
    resolved = [nz.get(n) for n in names]
    start = time.perf_counter()
    out: dict[str, Any] = {"normalizers": [], "ids": [], "verdicts": {}, "rows": {}}
    for k, N in enumerate(resolved):
        def sub(label, done, total, k=k):
            if progress is not None:
                progress(f"{N.name} {label}", k * total + done, len(resolved) * total)

        rows = [r.to_dict() for r in check(ids, quick=quick, seed=seed, examples=examples, claims=claims,
                                           normalizer=N, progress=sub, budget=budget)]
        out["normalizers"].append(N.name)
        out["rows"][N.name] = rows
        out["verdicts"][N.name] = {r["id"]: r["verdict"] for r in rows}
        out["ids"] = list(dict.fromkeys(out["ids"] + [r["id"] for r in rows]))
    out["seconds"] = round(time.perf_counter() - start, 3)
    return out


_COLORS = {"proved": "#1a9850", "certified": "#66bd63", "holds": "#a6d96a", "falsified": "#d73027", "undecided": "#bdbdbd"}


def plot_matrix(matrix: dict, path) -> str:
    """Draw ``matrix`` (from :func:`run_matrix`) as a normalizer × conclusion heatmap (PNG/SVG)."""
    import os

    if not isinstance(matrix, dict) or not {"normalizers", "ids", "verdicts"} <= set(matrix):
        raise ValueError("matrix: expected the dict returned by run_matrix")
    path = os.fspath(path)
    if not path.lower().endswith((".png", ".svg", ".pdf")):
        raise ValueError(f"path: must end in .png, .svg or .pdf, got {path!r}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    order = list(_COLORS)
    names, ids = matrix["normalizers"], matrix["ids"]
    grid = np.array([[order.index(matrix["verdicts"][n].get(i, "undecided")) for i in ids] for n in names])
    fig, ax = plt.subplots(figsize=(1.0 + 0.55 * len(ids), 1.2 + 0.45 * len(names)))
    ax.imshow(grid, cmap=ListedColormap([_COLORS[v] for v in order]), vmin=-0.5, vmax=len(order) - 0.5, aspect="auto")
    ax.set_xticks(range(len(ids)), ids, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    rows = matrix.get("rows") if isinstance(matrix.get("rows"), dict) else {}
    broken = {(n, r.get("id")) for n, rs in rows.items() for r in rs if r.get("error") or r.get("conflict")}
    # "*": the normalizer does not meet a hypothesis of the reading's claim, as in the text matrix
    outside = {(n, r.get("id")) for n, rs in rows.items() for r in rs if r.get("hypotheses_broken")}
    for (i, j), v in np.ndenumerate(grid):
        # readable without colour; "E": an error or a conflict, not a verdict
        mark = "E" if (names[i], ids[j]) in broken else order[v][0].upper()
        if (names[i], ids[j]) in outside and mark != "E":
            mark += "*"
        ax.text(j, i, mark, ha="center", va="center", fontsize=7, fontweight="bold" if mark == "E" else "normal")
    ax.set_title("claim conclusions under each normalizer", fontsize=9)
    handles = [Patch(color=_COLORS[v], label=v) for v in order]
    if broken:
        handles.append(Patch(color="white", label="E: error or conflict"))
    if outside:
        handles.append(Patch(color="white", label="*: a hypothesis of the claim not met\n(not a counterexample to it)"))
    ax.legend(handles=handles, loc="upper left",
              bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    # bbox_inches="tight" grows the canvas to hold the outside legend and the rotated ids;
    # tight_layout could not, for a narrow matrix, and warned
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, dpi=120, bbox_inches="tight", format=path.rsplit(".", 1)[1].lower())
    plt.close(fig)
    return path
