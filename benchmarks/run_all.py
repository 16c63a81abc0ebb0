"""Run every benchmark in turn (``make bench``); each writes its JSON to benchmarks/results/.

Speed and memory targets live here, not in timed tests: kernels (≥ 1e6 softmax rows/s at
L = 64), ``check --quick`` (≤ 90 s on 2 cores), and ``reproduce`` against the naive peer
(≥ 2.5x faster, ≤ half the peak memory, metrics ≤ 25% of forward time), and the paper
protocol against its per-token peer (≥ 10x faster, ≤ half the memory; the full run ≤ 5 min, ≤ 2 GB).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
BENCHES = ("bench_kernels.py", "bench_check.py", "bench_reproduce.py", "bench_reproduce_paper.py")


def main() -> int:
    status = 0
    for name in BENCHES:
        print(f"== {name}", flush=True)
        status |= subprocess.call([sys.executable, str(HERE / name)])
    return status


if __name__ == "__main__":
    sys.exit(main())
