"""What the paper protocol's exact computation needs, counted: a floor for its metric time.

Counts, over the rows of the full paper-scale run on a GPT-2-small-shaped model (E1–E4, L up
to 1024, one window, the default tiling), what the row engine
(:func:`attnbounds.empirical.fused.row_metrics`) must compute whatever its implementation:

* square roots: D_i = ‖α_i x_i − s_N‖ at every key a checkpoint N leaves out (at every key for
  N < 16, E4's N, or N < 3t/4, where the engine takes them all), and every N's T1(ii) main term
  over all of a row's keys;
* flops of the products x_i · s_N (64-dimensional) of the direct checkpoints (N ≥ 16) and of
  the row's context c;
* row-keys sorted and passed through a softmax.

The checkpoints are those of the run: E1 (N = 5 at every L), E2 and E4 (at L = 1024), E3's
scan (:func:`attnbounds.empirical.protocol.ks_scan_points`, on the main window's rows r < L and
on the windows that tile the window at L), and E3's bisection: the N a run tested beyond the
scan, read from its ``ks_scan.csv`` (``--run DIR``, the output of
``attnbounds reproduce --model gpt2-random --windows 1``; the look-ahead's untested midpoints
are not counted, so this is a lower bound).

    python benchmarks/floor_reproduce_paper.py --run runs/full [--sqrt-ns 0.45] [--gflops 165]

The rates default to this project's 2-core machine: 0.45 ns per square root in a vectorized
loop over both cores, 165 GFLOP/s for MKL's float64 product at its best.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from attnbounds.empirical import experiments as ex
from attnbounds.empirical import protocol as pr
from attnbounds.empirical.run import DEFAULT_LENGTHS

HEADS = 144  # GPT-2-small: 12 layers × 12 heads
LENGTHS = DEFAULT_LENGTHS  # 32 … 1024
LMAX = LENGTHS[-1]
E12 = tuple(sorted(set(pr.PaperSettings.e1_n) | set(pr.PaperSettings.e2_n)))
E4 = pr.PaperSettings.e4_n
GRAM = ex.GRAM_GAP  # N below goes through the Gram matrix (no product)


def _bisection(run: Path) -> dict:
    """{L: [N]} tested by a run's E3 beyond its scan points."""
    out: dict = {}
    with open(run / "ks_scan.csv") as fh:
        for r in csv.DictReader(fh):
            L, n = int(r["L"]), int(float(r["N"]))
            if n not in pr.ks_scan_points(L):
                out.setdefault(L, []).append(n)
    return out


def count(bisection: dict) -> dict:
    tot = {"sqrt": 0, "main": 0, "flops": 0, "row_keys": 0}

    def rows(t_max: int, copies: int, cps) -> None:  # cps: (N, separability, main term, rows r < limit)
        for t in range(1, t_max + 1):
            act = [(n, s, m) for n, s, m, lim in cps if n < t and t - 1 < lim]
            if not act:
                continue
            tot["row_keys"] += t * copies
            products = 1  # c
            for n, s, m in act:
                if n < GRAM or s or 4 * n < 3 * t:
                    tot["sqrt"] += t * copies
                    products += n >= GRAM
                else:  # d̃ over the keys N leaves out, their product only
                    tot["sqrt"] += (t - n) * copies
                    tot["flops"] += 128 * (t - n) * copies
                if m:
                    tot["main"] += t * copies
            tot["flops"] += 128 * t * max(products, 2) * copies

    every = {n: [n in E4, n in E12, 10 ** 9] for n in set(E12) | set(E4)}
    for L in LENGTHS:  # the main window: E3's scan of each L on its rows r < L
        for n in pr.ks_scan_points(L):
            if n >= L:
                continue
            c = every.setdefault(n, [False, True, 0])
            c[1] = True
            c[2] = 10 ** 9 if (c[2] >= 10 ** 9 or L == LMAX) else max(c[2], L)
    rows(LMAX, HEADS, [(n, *v) for n, v in every.items()])
    for L in LENGTHS[:-1]:  # the windows that tile the window at L: E1 and E3's scan
        cps = {5} | {n for n in pr.ks_scan_points(L) if n < L}
        rows(L, HEADS * (LMAX // L - 1), [(n, False, True, 10 ** 9) for n in cps])
    for L, ns in bisection.items():  # E3's bisection over the main window's rows r < L and the tiling windows
        cps = [(n, False, True, 10 ** 9) for n in ns]
        rows(L, HEADS, cps)
        if L < LMAX:
            rows(L, HEADS * (LMAX // L - 1), cps)
    return tot


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", type=Path, required=True, help="output directory of a full gpt2-random run (ks_scan.csv)")
    ap.add_argument("--sqrt-ns", type=float, default=0.45, help="ns per square root, both cores (default 0.45)")
    ap.add_argument("--gflops", type=float, default=165.0, help="GFLOP/s of the products (default 165)")
    args = ap.parse_args()
    tot = count(_bisection(args.run))
    seconds = {"square roots": (tot["sqrt"] + tot["main"]) * args.sqrt_ns * 1e-9, "products": tot["flops"] / (args.gflops * 1e9)}
    print(json.dumps({"counts": tot, "seconds at the given rates": seconds}, indent=1))


if __name__ == "__main__":
    main()
