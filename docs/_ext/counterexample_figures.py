"""A small figure of a counterexample, rendered at build time as inline SVG.

One panel per array of the instance (a bar chart for a vector, a heat map for a matrix),
then a panel comparing the two sides of the violated relation.
"""

from __future__ import annotations

import io
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

_MAX_ARRAY_PANELS = 3
_MAX_ENTRIES = 256


def _arrays(instance: dict) -> list[tuple[str, np.ndarray]]:
    arrays = []
    for name, value in instance.items():
        if not isinstance(value, list):
            continue
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            continue
        if arr.ndim in (1, 2) and 0 < arr.size <= _MAX_ENTRIES and np.all(np.isfinite(arr)):
            arrays.append((name, arr))
    return arrays[:_MAX_ARRAY_PANELS]


def _scalars(instance: dict) -> str:
    items = [f"{k}={v:.4g}" for k, v in instance.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return ", ".join(items)


def counterexample_svg(title: str, instance: dict | None, lhs, rhs, relation: str | None = "<=") -> str | None:
    """Inline SVG markup, or None when there is nothing numeric to draw."""
    instance = instance or {}
    arrays = _arrays(instance)
    sides_ok = all(isinstance(v, (int, float)) and math.isfinite(v) for v in (lhs, rhs))
    panels = len(arrays) + (1 if sides_ok else 0)
    if panels == 0:
        return None
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": title, "font.size": 8}):
        fig, axes = plt.subplots(1, panels, figsize=(2.6 * panels, 2.2), squeeze=False)
        for ax, (name, arr) in zip(axes[0], arrays):
            if arr.ndim == 2 and arr.shape[1] == 1:
                arr, name = arr[:, 0], f"{name} (d = 1)"
            if arr.ndim == 1:
                ax.bar(np.arange(1, arr.size + 1), arr, color="#4878a8")
                ax.axhline(0.0, color="black", linewidth=0.5)
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
                ax.set_xlabel("index i")
            elif arr.shape[1] == 2:
                # Points in the plane, labelled by their index.
                ax.scatter(arr[:, 0], arr[:, 1], color="#4878a8", zorder=3)
                for i, (u, v) in enumerate(arr, start=1):
                    ax.annotate(str(i), (u, v), textcoords="offset points", xytext=(3, 3))
                ax.scatter([0.0], [0.0], marker="+", color="black")
                ax.set_aspect("equal", adjustable="datalim")
                ax.set_xlabel("coordinate 1")
                ax.set_ylabel("coordinate 2")
            else:
                im = ax.imshow(arr, cmap="coolwarm", aspect="auto")
                fig.colorbar(im, ax=ax, fraction=0.05)
                ax.set_xlabel("column")
                ax.set_ylabel("row")
            ax.set_title(name)
        if sides_ok:
            ax = axes[0][-1]
            bars = ax.bar(["lhs", "rhs"], [lhs, rhs], color=["#c44e52", "#55a868"])
            ax.bar_label(bars, labels=[f"{lhs:.4g}", f"{rhs:.4g}"])
            ax.axhline(0.0, color="black", linewidth=0.5)
            ax.margins(y=0.2)
            ax.set_title(f"lhs {relation} rhs fails" if relation else "the two sides")
        scalars = _scalars(instance)
        fig.suptitle(title + (f"   ({scalars})" if scalars else ""), fontsize=8)
        fig.tight_layout()
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
        plt.close(fig)
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :]
