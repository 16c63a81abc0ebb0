"""What a benchmark's figures belong to: the CPU model, its vector extensions, the core count
and the platform. The same code on another machine gives other figures (a Zen 1 EPYC with AVX2
ran ``reproduce`` about 3.5× slower than the machine that measured the first committed results),
so every benchmark records this beside its numbers."""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

_VECTOR_FLAGS = ("avx2", "avx512f", "avx512_bf16", "amx_tile", "neon", "asimd")


def _cpuinfo() -> dict:
    path = Path("/proc/cpuinfo")
    out: dict = {}
    if not path.is_file():
        return out
    for line in path.read_text(errors="replace").splitlines():
        key, _, value = line.partition(":")
        key = key.strip().lower()
        if key in ("model name", "flags", "features") and key not in out:
            out[key] = value.strip()
    return out


def machine() -> dict:
    """The machine a benchmark runs on, for its results file."""
    info = _cpuinfo()
    flags = set((info.get("flags") or info.get("features") or "").split())
    return {
        "cpu_model": info.get("model name") or platform.processor() or "unknown",
        "vector_extensions": [f for f in _VECTOR_FLAGS if f in flags],
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
    }


def describe(m: dict) -> str:
    """One line for a Markdown report."""
    ext = ", ".join(m.get("vector_extensions") or []) or "none detected"
    return f"{m.get('cpu_model', 'unknown CPU (not recorded)')} ({ext}), {m['cpus']} CPUs, {m['platform']}"


if __name__ == "__main__":
    print(describe(machine()))
