"""The naive peer of ``attnbounds reproduce --experiments E1``, as a whole process.

What a first implementation would do: one forward pass per length L with
``output_attentions=True`` under eager attention (full (L, L) weights for every layer),
value vectors taken from a forward hook on GPT-2's ``c_attn``, and Python loops over
layers, heads and N calling the per-row kernels of :mod:`attnbounds.numerics`. It
computes the same quantities as ours: d̃, ᾱ_N, both T1(i) bounds, the T1(ii) main term
and a Monte Carlo E_S[d̃] with ``--mc-samples`` subsets.

    python benchmarks/naive_e1.py --text FILE --windows 2 --out naive.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="gpt2-random")
    ap.add_argument("--text", required=True)
    ap.add_argument("--windows", type=int, default=2)
    ap.add_argument("--lengths", default="32,64,128,256,512,1024")
    ap.add_argument("--top-n", default="1,5,10,20,100")
    ap.add_argument("--mc-samples", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    import torch

    from attnbounds.empirical.models import load_model
    from attnbounds.empirical.text import load_text, token_windows
    from attnbounds.numerics import attention as att
    from attnbounds.numerics import selection

    lengths = [int(v) for v in args.lengths.split(",")]
    top_n = [int(v) for v in args.top_n.split(",")]
    handle = load_model(args.model, seed=args.seed)
    model = handle.model
    H, dh = handle.n_heads, handle.head_dim
    windows = token_windows(load_text(args.text), handle.tokenizer, max(lengths), args.windows)

    values = {}

    def hook(layer):
        def fn(module, inputs, output):  # c_attn output (1, L, 3·dm) = [q | k | v]
            v = output[0, :, 2 * H * dh:]  # (L, dm)
            values[layer] = v.reshape(v.shape[0], H, dh).permute(1, 0, 2).numpy().astype(np.float64)  # (H, L, dh)
        return fn

    hooks = [blk.attn.c_attn.register_forward_hook(hook(i)) for i, blk in enumerate(model.transformer.h)]
    rng = np.random.default_rng(args.seed)
    rows = []
    forward = metric = 0.0
    for wi, ids in enumerate(windows):
        for L in lengths:
            t0 = time.perf_counter()
            with torch.no_grad():
                out = model(torch.as_tensor(ids[:L])[None], output_attentions=True, use_cache=False)
            attn = [a[0].numpy().astype(np.float64) for a in out.attentions]  # Y × (H, L, L)
            forward += time.perf_counter() - t0
            t0 = time.perf_counter()
            for layer in range(len(attn)):
                for head in range(H):
                    w = attn[layer][head, L - 1]
                    w = w / w.sum()
                    x = values[layer][head]
                    x = x / np.linalg.norm(x, axis=-1, keepdims=True)
                    norms = np.linalg.norm(x, axis=-1)
                    for n in top_n:
                        if n >= L:
                            continue
                        mask = att.top_n_mask(w, n)
                        d = float(att.cumulative_distance(w, x, n))
                        mass = float(att.selected_mass(w, n))
                        recon = (1 - mass) * norms[~mask].max() + norms[mask].max() * mass * (L - n)
                        main = float(selection.random_selection_main_term(w, x, n))
                        mc = selection.random_selection_expectation(w, x, n, method="mc", samples=args.mc_samples,
                                                                    seed=rng, confidence=0.95)
                        rows.append((layer, head, wi, L, n, d, mc.value, mc.ci_low, mc.ci_high, recon,
                                     recon - (1 - mass), mass, main))
            metric += time.perf_counter() - t0
    for h in hooks:
        h.remove()
    with open(args.out, "w") as fh:
        json.dump({"rows": len(rows), "forward_seconds": forward, "metric_seconds": metric,
                   "mean_d_tilde": float(np.mean([r[5] for r in rows]))}, fh)


if __name__ == "__main__":
    main()
