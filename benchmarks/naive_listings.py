"""The naive peer of ``reproduce --protocol paper``: the paper's listings written plainly.

Python loops over layers, heads and query positions t (numpy over a row's keys), one
``output_attentions=True`` forward pass per window length L (eager attention, full (L, L)
weights of every layer), value vectors from a forward hook on GPT-2's ``c_attn``. The
pure per-token functions (:func:`row_d_tilde`, :func:`row_ns_over_n`, :func:`row_bound`,
:func:`row_expectation`) follow the definitions of ``PROTOCOL.md`` token by token; the
tests compare ``reproduce``'s heads.csv with them on the same captured attention.

    python benchmarks/naive_listings.py --text FILE --lengths 64,128,256,512,1024 --top-n 5 --out naive.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def top_set(w, n):
    """I_N: the indices of the n largest weights, ties to the lower index."""
    return [int(i) for i in sorted(range(len(w)), key=lambda i: (-w[i], i))[:n]]


def row_d_tilde(w, x, n) -> float:
    """d̃ = Σ_{i∉I_N} ‖α_i x_i − s‖ with s = Σ_{j∈I_N} α_j x_j, token by token."""
    sel = top_set(w, n)
    s = np.zeros(x.shape[1])
    for j in sel:
        s = s + w[j] * x[j]
    total = 0.0
    for i in range(len(w)):
        if i not in sel:
            total += float(np.linalg.norm(w[i] * x[i] - s))
    return total


def row_ns_over_n(w, x, n) -> float:
    """N_s/N with r = min_{i∉I_N} ‖s − α_i x_i‖ and N_s = #{j ∈ I_N : ‖s − α_j x_j‖ < r}."""
    sel = top_set(w, n)
    s = np.zeros(x.shape[1])
    for j in sel:
        s = s + w[j] * x[j]
    r = min(float(np.linalg.norm(s - w[i] * x[i])) for i in range(len(w)) if i not in sel)
    inside = sum(1 for j in sel if float(np.linalg.norm(s - w[j] * x[j])) < r)
    return inside / n


def row_bound(w, x, n) -> float:
    """T1(i): (1 − ᾱ_N) d_1 + R((L − N) ᾱ_N − (1 − ᾱ_N)) with the paper's
    d_1 = max_{i∉I_N, j∈I_N}‖x_i − x_j‖ and R = max_{j∈I_N}‖x_j‖ (on the unit sphere this is
    the paper's formula)."""
    sel = top_set(w, n)
    mass = sum(w[j] for j in sel)
    d1 = max(float(np.linalg.norm(x[i] - x[j])) for i in range(len(w)) if i not in sel for j in sel)
    R = max(float(np.linalg.norm(x[j])) for j in sel)
    return (1 - mass) * d1 + R * ((len(w) - n) * mass - (1 - mass))


def row_expectation(w, x, n) -> float:
    """T1(ii): (L − N)/L Σ_i ‖(1 + k) α_i x_i − k Σ_j α_j x_j‖, k = N/(L − 1)."""
    L = len(w)
    k = n / (L - 1)
    c = np.zeros(x.shape[1])
    for j in range(L):
        c = c + w[j] * x[j]
    return (L - n) / L * sum(float(np.linalg.norm((1 + k) * w[i] * x[i] - k * c)) for i in range(L))


def row_e1_numpy(w, x, n) -> tuple:
    """d̃, the T1(i) bound and the T1(ii) expectation of one row, numpy over its keys (the peer's kernel)."""
    from attnbounds.numerics import attention as att
    from attnbounds.numerics import selection

    mask = att.top_n_mask(w, n)
    norms = np.linalg.norm(x, axis=-1)
    mass = float(att.selected_mass(w, n))
    d1 = np.linalg.norm(x[~mask][:, None, :] - x[mask][None, :, :], axis=-1).max()  # paper's d_1
    R = norms[mask].max()
    bound = (1 - mass) * d1 + R * ((len(w) - n) * mass - (1 - mass))
    return float(att.cumulative_distance(w, x, n)), bound, float(selection.random_selection_main_term(w, x, n))


def head_means(weights, x, n, fn, rows="prefix"):
    """Mean over query positions t of ``fn`` for one head: weights (L, L) causal, x (L, d).

    ``prefix``: row t uses its t visible keys, rows with t ≤ N are skipped. ``full``: every
    row uses all L keys (the masked ones with weight 0).
    """
    vals = head_values(weights, x, n, fn, rows)
    return float(np.mean(vals)) if vals else float("nan")


def head_values(weights, x, n, fn, rows="prefix") -> list:
    """``fn`` at every query position that :func:`head_means` averages (a list)."""
    L = weights.shape[0]
    vals = []
    for p in range(L):
        t = p + 1
        if rows == "prefix":
            if t <= n:
                continue
            vals.append(fn(weights[p, :t], x[:t], n))
        else:
            vals.append(fn(weights[p], x, n))
    return vals


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="gpt2-random")
    ap.add_argument("--text", required=True)
    ap.add_argument("--windows", type=int, default=1)
    ap.add_argument("--lengths", default="64,128,256,512,1024")
    ap.add_argument("--top-n", default="5")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    import torch

    from attnbounds.empirical.models import load_model
    from attnbounds.empirical.text import load_text, token_windows

    lengths = [int(v) for v in args.lengths.split(",")]
    top_n = [int(v) for v in args.top_n.split(",")]
    handle = load_model(args.model, seed=args.seed)
    model = handle.model
    model.set_attn_implementation("eager")
    H, dh = handle.n_heads, handle.head_dim
    windows = token_windows(load_text(args.text), handle.tokenizer, max(lengths), args.windows)
    values = {}

    def hook(layer):
        def fn(module, inputs, output):  # c_attn output (1, L, 3·dm) = [q | k | v]
            v = output[0, :, 2 * H * dh:]
            values[layer] = v.reshape(v.shape[0], H, dh).permute(1, 0, 2).numpy().astype(np.float64)  # (H, L, dh)
        return fn

    hooks = [blk.attn.c_attn.register_forward_hook(hook(i)) for i, blk in enumerate(model.transformer.h)]
    out = {}
    forward = metric = 0.0
    for wi, ids in enumerate(windows):
        ids = np.asarray(getattr(ids, "input_ids", ids))
        for L in lengths:
            t0 = time.perf_counter()
            with torch.no_grad():
                res = model(torch.as_tensor(ids[:L])[None], output_attentions=True, use_cache=False)
            attn = [a[0].numpy().astype(np.float64) for a in res.attentions]  # Y × (H, L, L)
            forward += time.perf_counter() - t0
            t0 = time.perf_counter()
            for layer in range(len(attn)):
                for head in range(H):
                    w = attn[layer][head]
                    x = values[layer][head]
                    x = x / np.linalg.norm(x, axis=-1, keepdims=True)
                    for n in top_n:
                        acc = []
                        for p in range(n, L):  # query position t = p + 1 > N, its t visible keys
                            row = w[p, :p + 1] / w[p, :p + 1].sum()
                            acc.append(row_e1_numpy(row, x[:p + 1], n))
                        for k, name in enumerate(("d_tilde", "bound", "expectation")):
                            out[f"{wi}/{L}/{layer}/{head}/{n}/{name}"] = float(np.mean([a[k] for a in acc]))
            metric += time.perf_counter() - t0
            del attn
    for h in hooks:
        h.remove()
    with open(args.out, "w") as fh:
        json.dump({"forward_seconds": forward, "metric_seconds": metric, "values": out}, fh)


if __name__ == "__main__":
    main()
