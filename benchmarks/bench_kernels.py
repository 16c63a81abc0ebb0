"""Throughput of the numeric kernels (rows per second), best of several repeats.

Run ``python benchmarks/bench_kernels.py [--rows N] [--repeats R] [--out PATH]``. Prints a
table and writes JSON (default ``benchmarks/results/kernels.json``). This is a measurement,
not a test: numbers depend on the machine and on its load, which the JSON records.

Kernels (L = 64 tokens unless stated):

* ``softmax`` -- :func:`attnbounds.numerics.attention.softmax` on ``(rows, L)`` logits;
  the target is at least 1e6 rows/s on the reference 2-core machine;
* ``softmax_inplace_chunked`` -- a comparison point defined here: the same arithmetic
  without validation, in place on cache-sized row chunks (what the kernel could reach);
* ``softmax_jacobian_norms`` -- all four norms without forming J;
* ``spectral_norm`` -- :func:`largest_eigenvalue_diag_minus_outer` alone (secular equation);
* ``eigvalsh_reference`` -- the same spectral norm via ``numpy.linalg.eigvalsh`` on formed J;
* ``cumulative_distance`` -- d̃ for the top-5 set with d = 16;
* ``selection_exact`` -- E_S[d̃] by enumeration at L = 12, n = 3 (220 subsets) per row.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from attnbounds.numerics.attention import cumulative_distance, softmax, softmax_jacobian
from attnbounds.numerics.jacobian import largest_eigenvalue_diag_minus_outer, softmax_jacobian_norms
from attnbounds.numerics.selection import random_selection_expectation

from machine import machine  # benchmarks/machine.py: the script's own directory is on sys.path

TARGET_SOFTMAX_ROWS_PER_S = 1e6


def softmax_inplace_chunked(z: np.ndarray, T: float = 1.0, rows_per_chunk: int = 4096) -> np.ndarray:
    """A comparison point, not a project kernel: the same arithmetic as ``softmax`` (no
    validation) done in place on row chunks that fit in cache."""
    out = np.empty_like(z)
    for start in range(0, z.shape[0], rows_per_chunk):
        e = out[start : start + rows_per_chunk]  # view, (chunk, L)
        np.divide(z[start : start + rows_per_chunk], T, out=e)
        e -= e.max(axis=-1, keepdims=True)  # l/T − max
        np.exp(e, out=e)
        e /= e.sum(axis=-1, keepdims=True)
    return out


def best_time(fn, repeats: int) -> float:
    """The fastest of ``repeats`` wall-clock timings (perf_counter) after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def run(rows: int, repeats: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    L, d = 64, 16
    z = rng.standard_normal((rows, L))  # (rows, L)
    a = softmax(z)  # (rows, L)
    rows_cd = max(1, rows // 8)  # embeddings are L·d times larger than the weights
    x = rng.standard_normal((rows_cd, L, d)) / np.sqrt(d)  # (rows_cd, L, d)
    a_cd = a[:rows_cd]
    small = max(1, rows // 512)
    z_small = z[:small]  # eigvalsh is O(L³) per row: fewer rows
    rows_sel = max(1, rows // 256)
    a_sel = softmax(rng.standard_normal((rows_sel, 12)))  # (rows_sel, 12)
    x_sel = rng.standard_normal((rows_sel, 12, 8))  # (rows_sel, 12, 8)
    cases = [
        ("softmax", f"L={L}", rows, lambda: softmax(z)),
        ("softmax_inplace_chunked", f"L={L}", rows, lambda: softmax_inplace_chunked(z)),
        ("softmax_jacobian_norms", f"L={L}", rows, lambda: softmax_jacobian_norms(z)),
        ("spectral_norm", f"L={L}", rows, lambda: largest_eigenvalue_diag_minus_outer(a)),
        ("eigvalsh_reference", f"L={L}", small, lambda: np.linalg.eigvalsh(softmax_jacobian(z_small))[..., -1]),
        ("cumulative_distance", f"L={L}, d={d}, n=5", rows_cd, lambda: cumulative_distance(a_cd, x, 5)),
        ("selection_exact", "L=12, n=3, d=8", rows_sel, lambda: random_selection_expectation(a_sel, x_sel, 3)),
    ]
    out = []
    for name, shape, n_rows, fn in cases:
        t = best_time(fn, repeats)
        out.append({"kernel": name, "shape": shape, "rows": n_rows, "seconds": t, "rows_per_s": n_rows / t})
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1 << 16, help="batch rows per call (default 65536)")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats; the best is kept (default 5)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "kernels.json")
    args = parser.parse_args(argv)
    if args.rows < 1:
        parser.error("--rows: must be >= 1")
    if args.repeats < 1:
        parser.error("--repeats: must be >= 1")
    results = run(args.rows, args.repeats)
    print(f"{'kernel':<24} {'shape':<18} {'rows':>8} {'best s':>10} {'rows/s':>12}")
    for r in results:
        print(f"{r['kernel']:<24} {r['shape']:<18} {r['rows']:>8} {r['seconds']:>10.4f} {r['rows_per_s']:>12.3e}")
    sm = next(r for r in results if r["kernel"] == "softmax")
    meets = sm["rows_per_s"] >= TARGET_SOFTMAX_ROWS_PER_S
    print(f"softmax target {TARGET_SOFTMAX_ROWS_PER_S:.0e} rows/s: {'met' if meets else 'NOT met'}")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    payload = {
        "results": results,
        "softmax_target_rows_per_s": TARGET_SOFTMAX_ROWS_PER_S,
        "softmax_target_met": meets,
        "machine": {
            **machine(),
            "numpy": np.__version__,
            "loadavg": load,
            "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        },
        "rows": args.rows,
        "repeats": args.repeats,
        "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
