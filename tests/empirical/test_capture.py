"""Tests of attnbounds.empirical.capture against each model's own eager attention.

Reference: a separate forward pass with ``attn_implementation="eager"`` and
``output_attentions=True`` (the weights transformers itself computes). Tolerance 1e-5.
"""

from __future__ import annotations

import numpy as np
import pytest

from attnbounds.empirical.capture import AttentionCapture, capture_attention
from attnbounds.numerics import softmax

pytestmark = pytest.mark.empirical

TOL = 1e-5


def _ids(handle, L: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, handle.model.config.vocab_size, L)


def _eager_weights(handle, ids) -> np.ndarray:
    """(Y, H, L, L) attention weights from the model's own eager forward pass."""
    import torch

    assert handle.model.config._attn_implementation == "eager"
    batch = torch.as_tensor(ids)[None]  # (1, L)
    kwargs = {} if handle.causal else {"attention_mask": torch.ones_like(batch)}
    with torch.no_grad():
        out = handle.model(batch, output_attentions=True, **kwargs)
    assert len(out.attentions) == handle.n_layers, "eager forward returned no attention weights"
    return torch.stack(out.attentions)[:, 0].numpy()  # (Y, H, L, L)


def _check_logits_reproduce_weights(cap: AttentionCapture) -> float:
    """Visible entries: weights = softmax(logits); hidden entries: logits -inf, weights 0."""
    L = cap.length
    worst = 0.0
    for q, p in enumerate(cap.query_positions):
        visible = np.arange(L) <= p if cap.causal else np.ones(L, bool)  # (L,)
        logits = cap.logits[:, :, q]  # (Y, H, L)
        assert np.isfinite(logits[..., visible]).all()
        assert np.isneginf(logits[..., ~visible]).all()
        assert (cap.weights[:, :, q][..., ~visible] == 0).all()
        again = softmax(logits[..., visible].astype(np.float64))  # (Y, H, |visible|)
        worst = max(worst, float(np.abs(again - cap.weights[:, :, q][..., visible]).max()))
    assert worst < TOL
    return worst


def _check_shapes(cap: AttentionCapture, handle, Q: int, L: int) -> None:
    Y, H, dh, dm = handle.n_layers, handle.n_heads, handle.head_dim, handle.d_model
    assert cap.logits.shape == cap.weights.shape == (Y, H, Q, L)
    assert cap.keys.shape == cap.values.shape == (Y, H, L, dh)
    assert cap.hidden.shape == (Y, L, dm)
    assert cap.queries.shape == (Y, H, Q, dh)
    for name in ("logits", "weights", "keys", "values", "hidden", "queries"):
        assert getattr(cap, name).dtype == np.float32, name
    assert cap.input_ids.shape == (L,) and cap.query_positions.shape == (Q,)
    np.testing.assert_allclose(cap.weights.sum(-1), 1.0, atol=1e-5)


def _check_prefix(handle, ids, lengths) -> dict:
    """One capture at L_max equals separate captures on each prefix."""
    full = capture_attention(handle, ids, query_positions=[P - 1 for P in lengths])
    worst = {}
    for P in lengths:
        alone = capture_attention(handle, ids[:P])  # default row: P - 1
        part = full.prefix(P)
        for name in ("weights", "logits", "values", "keys", "hidden", "queries"):
            a, b = getattr(part, name), getattr(alone, name)
            assert a.shape == b.shape, name
            finite = np.isfinite(b)
            assert (np.isfinite(a) == finite).all(), name
            err = float(np.abs(a[finite] - b[finite]).max())
            worst[name] = max(worst.get(name, 0.0), err)
    # values/keys/hidden of the first P tokens do not depend on later ones; logits and
    # weights differ only by float reassociation over a longer key axis.
    assert worst["weights"] < TOL, worst
    assert max(worst[n] for n in ("values", "keys", "hidden", "queries")) < TOL, worst
    return worst


# --- GPT-2 (tiny random config, real BPE vocabulary) ----------------------------------


def test_gpt2_capture_equals_eager_weights_on_every_row(tiny_gpt2):
    L = 40
    ids = _ids(tiny_gpt2, L)
    cap = capture_attention(tiny_gpt2, ids, query_positions=np.arange(L))
    _check_shapes(cap, tiny_gpt2, L, L)
    ref = _eager_weights(tiny_gpt2, ids)  # (Y, H, L, L)
    assert np.abs(cap.weights - ref).max() < TOL
    _check_logits_reproduce_weights(cap)
    np.testing.assert_allclose(cap.scaling, 16**-0.5)
    assert tiny_gpt2.model.config._attn_implementation == "eager"  # switched back


@pytest.mark.parametrize("mask_kind", ["additive", "bool", "none"])
@pytest.mark.parametrize("groups", [1, 3])
def test_record_rows_masks_in_place_without_touching_its_inputs(mask_kind, groups):
    """The kept rows' logits, scaled, masked and filled in place, equal the out-of-place
    (q·kᵀ)·scaling + mask, −inf where hidden, for every row and for a few gathered rows; the
    model's own query, key, value and mask are left as they were."""
    import torch

    from attnbounds.empirical.capture import _record_rows

    gen = torch.Generator().manual_seed(0)
    B, H, L, dh = 1, 6, 12, 8
    query = torch.randn(B, H, L, dh, generator=gen)
    key = torch.randn(B, H // groups, L, dh, generator=gen)
    value = torch.randn(B, H // groups, L, dh, generator=gen)
    hidden = torch.ones(L, L, dtype=torch.bool).triu(1)  # causal: keys after the row
    mask = {"additive": torch.zeros(L, L).masked_fill(hidden, torch.finfo(torch.float32).min)[None, None],
            "bool": (~hidden)[None, None], "none": None}[mask_kind]
    before = [t.clone() for t in (query, key, value) + (() if mask is None else (mask,))]
    k = torch.repeat_interleave(key, groups, dim=1)
    for rows in (torch.arange(L), torch.tensor([0, 5, 11])):
        got = _record_rows(query, key, value, mask, 0.3, rows, ("logits", "weights", "queries"))
        want = torch.matmul(query[:, :, rows], k.transpose(-1, -2)) * 0.3
        if mask_kind == "additive":
            want = (want + mask[..., rows, :]).masked_fill(hidden[rows][None, None], float("-inf"))
        elif mask_kind == "bool":
            want = want.masked_fill(hidden[rows][None, None], float("-inf"))
        np.testing.assert_array_equal(got["logits"], want[0].numpy())
        np.testing.assert_array_equal(got["weights"], torch.softmax(want, -1)[0].numpy())
        np.testing.assert_array_equal(got["queries"], query[0][:, rows].numpy())
    for a, b in zip(before, (query, key, value) + (() if mask is None else (mask,))):
        assert torch.equal(a, b)


def test_gpt2_every_row_and_some_rows_record_the_same(tiny_gpt2):
    """Every row (recorded without a gathered copy) against a few rows (gathered): the same rows."""
    L, some = 32, [0, 7, 31]
    ids = _ids(tiny_gpt2, L, seed=3)
    every = capture_attention(tiny_gpt2, ids, query_positions=np.arange(L))
    part = capture_attention(tiny_gpt2, ids, query_positions=some)
    for name in ("logits", "weights", "queries"):
        a, b = getattr(every, name)[:, :, some], getattr(part, name)
        assert (np.isneginf(a) == np.isneginf(b)).all(), name
        np.testing.assert_allclose(a[np.isfinite(a)], b[np.isfinite(b)], rtol=1e-6, atol=1e-7, err_msg=name)
    for name in ("hidden", "keys", "values"):
        np.testing.assert_array_equal(getattr(every, name), getattr(part, name), err_msg=name)


def test_gpt2_keys_values_hidden_follow_from_the_layer_input(tiny_gpt2):
    """k, v = split(c_attn(ln_1(h))) recomputed from the captured layer input h."""
    import torch

    ids = _ids(tiny_gpt2, 24, seed=1)
    cap = capture_attention(tiny_gpt2, ids, query_positions=[5, 23])
    H, dh = tiny_gpt2.n_heads, tiny_gpt2.head_dim
    for layer, block in enumerate(tiny_gpt2.model.transformer.h):
        with torch.no_grad():
            qkv = block.attn.c_attn(block.ln_1(torch.from_numpy(cap.hidden[layer])))  # (L, 3·dm)
        q, k, v = (t.reshape(-1, H, dh).transpose(0, 1).numpy() for t in qkv.split(H * dh, dim=-1))  # (H, L, dh)
        np.testing.assert_allclose(cap.keys[layer], k, atol=TOL)
        np.testing.assert_allclose(cap.values[layer], v, atol=TOL)
        np.testing.assert_allclose(cap.queries[layer], q[:, [5, 23]], atol=TOL)
    # the layer input of layer 0 is the embedding sum wte + wpe
    emb = tiny_gpt2.model.transformer.wte.weight[ids] + tiny_gpt2.model.transformer.wpe.weight[: len(ids)]
    np.testing.assert_allclose(cap.hidden[0], emb.detach().numpy(), atol=TOL)


def test_gpt2_prefix_equivalence(tiny_gpt2):
    _check_prefix(tiny_gpt2, _ids(tiny_gpt2, 48, seed=2), [1, 9, 30, 48])


def test_default_query_position_is_the_last(tiny_gpt2):
    cap = capture_attention(tiny_gpt2, _ids(tiny_gpt2, 12))
    assert cap.query_positions.tolist() == [11]
    assert cap.weights.shape[2] == 1
    assert cap.model == tiny_gpt2.name and cap.causal


@pytest.mark.parametrize(
    "ids, positions, match",
    [
        (np.zeros((1, 4), dtype=int), None, "1-D"),
        (np.zeros(0, dtype=int), None, "at least one"),
        (np.zeros(4), None, "integers"),
        (np.array([0, 1, 50257]), None, r"\[0, 50257\)"),
        (np.zeros(1025, dtype=int), None, "at most 1024"),
        (np.zeros(4, dtype=int), [4], "query_positions"),
        (np.zeros(4, dtype=int), [-1], "query_positions"),
        (np.zeros(4, dtype=int), [0.5], "query_positions"),
        (np.zeros(4, dtype=int), [], "query_positions"),
    ],
)
def test_bad_arguments_are_named(tiny_gpt2, ids, positions, match):
    with pytest.raises(ValueError, match=match):
        capture_attention(tiny_gpt2, ids, query_positions=positions)


def test_prefix_needs_a_kept_row(tiny_gpt2):
    cap = capture_attention(tiny_gpt2, _ids(tiny_gpt2, 10), query_positions=[4, 9])
    assert cap.prefix(5).query_positions.tolist() == [4]
    with pytest.raises(ValueError, match="no kept query row at position 6"):
        cap.prefix(7)
    with pytest.raises(ValueError, match="length"):
        cap.prefix(11)


# --- SmolLM2 (Llama: RoPE, grouped-query attention) ------------------------------------


def test_smollm2_capture_equals_eager_weights(smollm2):
    L = 64
    ids = _ids(smollm2, L, seed=3)
    rows = [0, 15, 31, 63]
    cap = capture_attention(smollm2, ids, query_positions=rows)
    _check_shapes(cap, smollm2, len(rows), L)
    ref = _eager_weights(smollm2, ids)[:, :, rows]  # (Y, H, Q, L)
    assert np.abs(cap.weights - ref).max() < TOL
    _check_logits_reproduce_weights(cap)
    # GQA: 9 query heads share 3 key/value heads, heads 3g..3g+2 use key/value head g
    for g in range(3):
        for h in range(3 * g, 3 * g + 3):
            assert np.array_equal(cap.keys[:, h], cap.keys[:, 3 * g])
            assert np.array_equal(cap.values[:, h], cap.values[:, 3 * g])
    assert not np.array_equal(cap.keys[:, 0], cap.keys[:, 3])
    assert smollm2.model.config._attn_implementation == "eager"


def test_smollm2_keys_are_after_rope(smollm2):
    """k = RoPE(k_proj(rmsnorm(h))) recomputed from the captured input of layer 1."""
    import torch
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    L, layer = 20, 1
    cap = capture_attention(smollm2, _ids(smollm2, L, seed=4))
    block = smollm2.model.model.layers[layer]
    with torch.no_grad():
        x = block.input_layernorm(torch.from_numpy(cap.hidden[layer])[None])  # (1, L, dm)
        k = block.self_attn.k_proj(x).view(1, L, -1, smollm2.head_dim).transpose(1, 2)  # (1, Hkv, L, dh)
        q = block.self_attn.q_proj(x).view(1, L, -1, smollm2.head_dim).transpose(1, 2)  # (1, H, L, dh)
        cos, sin = smollm2.model.model.rotary_emb(x, torch.arange(L)[None])
        q_rot, k_rot = apply_rotary_pos_emb(q, k, cos, sin)
    k_rot = k_rot[0].repeat_interleave(3, dim=0).numpy()  # (H, L, dh)
    np.testing.assert_allclose(cap.keys[layer], k_rot, atol=1e-4)
    np.testing.assert_allclose(cap.queries[layer][:, 0], q_rot[0, :, L - 1].numpy(), atol=1e-4)
    assert not np.allclose(cap.keys[layer], k[0].repeat_interleave(3, dim=0).numpy(), atol=1e-2)  # RoPE acted


def test_smollm2_prefix_equivalence(smollm2):
    _check_prefix(smollm2, _ids(smollm2, 48, seed=5), [16, 48])


# --- MiniLM (BERT, bidirectional) ------------------------------------------------------


def test_minilm_capture_is_bidirectional_and_equals_eager(minilm):
    L = 32
    ids = _ids(minilm, L, seed=6)
    rows = [0, 16, 31]
    cap = capture_attention(minilm, ids, query_positions=rows)
    assert not cap.causal
    _check_shapes(cap, minilm, len(rows), L)
    assert np.isfinite(cap.logits).all() and (cap.weights > 0).all()  # every key visible
    ref = _eager_weights(minilm, ids)[:, :, rows]
    assert np.abs(cap.weights - ref).max() < TOL
    _check_logits_reproduce_weights(cap)
    with pytest.raises(ValueError, match="bidirectional"):
        cap.prefix(16)


def test_handle_must_be_a_model_handle():
    with pytest.raises(ValueError, match="handle must be a ModelHandle"):
        capture_attention(object(), [1, 2])


# --- models whose attention the record must reproduce, or refuse --------------------------


def _gemma2_dir(tmp_path, tokenizer, softcap):
    """A 2-layer Gemma 2 with random weights (large, so that soft-capping changes the weights),
    saved with GPT-2's tokenizer."""
    import torch
    from transformers import Gemma2Config, Gemma2Model

    torch.manual_seed(0)
    config = Gemma2Config(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=256,
                          attn_logit_softcapping=softcap, final_logit_softcapping=None, initializer_range=0.5,
                          sliding_window=256, layer_types=["full_attention", "full_attention"])
    model = Gemma2Model(config)
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    return str(tmp_path)


def test_a_soft_capped_model_is_captured_with_its_cap(tiny_gpt2, tmp_path):
    """A new user's trial: Gemma 2's attention caps its logits (c·tanh(l/c)); the record rebuilt
    q·kᵀ·scaling without it, and the weights were off by 0.8 with no warning."""
    from attnbounds.empirical.models import load_model

    handle = load_model(_gemma2_dir(tmp_path, tiny_gpt2.tokenizer, softcap=5.0))
    ids = _ids(handle, 24)
    cap = capture_attention(handle, ids, query_positions=np.arange(24))
    ref = _eager_weights(handle, ids)
    capped = np.abs(cap.logits[np.isfinite(cap.logits)])
    assert capped.max() <= 5.0 and capped.max() > 4.0  # the cap is reached: without it these logits are larger
    assert np.abs(cap.weights - ref).max() < TOL


def test_a_model_whose_attention_the_record_cannot_reproduce_is_refused(tiny_gpt2, monkeypatch):
    """The last kept row of each layer is checked against the weights the model's own eager
    attention returns: an attention with something the record does not rebuild stops the run."""
    import torch

    from attnbounds.empirical import capture

    real = capture._model_eager_attention

    def tempered(module):
        fn = real(module)

        def run(module, query, key, value, attention_mask, **kw):  # a temperature of 2 the record does not know
            return fn(module, query / 2, key, value, attention_mask, **kw)
        return run

    monkeypatch.setattr(capture, "_model_eager_attention", tempered)
    with torch.no_grad(), pytest.raises(RuntimeError, match="differs from the weights of the model's own eager attention"):
        capture_attention(tiny_gpt2, _ids(tiny_gpt2, 16))


def test_ids_beyond_the_models_vocabulary_name_a_mismatched_tokenizer(tiny_gpt2):
    """A trial's model had vocab_size 1000 and GPT-2's tokenizer: the error now says why."""
    from dataclasses import replace
    from types import SimpleNamespace

    from attnbounds.empirical.capture import _check_input_ids

    small = replace(tiny_gpt2, model=SimpleNamespace(config=SimpleNamespace(vocab_size=1000)))
    with pytest.raises(ValueError, match=r"the tokenizer has 50257 tokens and the model's embedding 1000"):
        _check_input_ids(np.array([0, 48937]), small)
