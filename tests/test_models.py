"""distlab.models: the tiny decoder-only Transformer that lessons 4-7 use as their single-process reference, a
pipeline's model parts (lesson 5's `Part`, checked equal) and one rank's share of its layers under tensor parallelism,
checked against it.

    pytest tests/test_models.py
"""
import math

import pytest
import torch
import torch.distributed as dist
import torch.nn.functional as F

import distlab
from autograde import sets
from distlab.models import (KVCache, LayerKV, ModelConfig, ModelPart, TensorParallelBlock, TiedNet, TinyTransformer,
                            random_batch, tp_generate)
from distlab.notebook_source import load_definitions

SMALL = ModelConfig(vocab_size=50, dim=16, n_layers=2, n_heads=4, max_seq_len=12)


def test_same_seed_same_weights_whatever_the_global_rng():
    torch.manual_seed(1)
    a = TinyTransformer(SMALL, seed=3)
    torch.manual_seed(2)
    torch.randn(100)
    b = TinyTransformer(SMALL, seed=3)
    c = TinyTransformer(SMALL, seed=4)
    for (name, pa), pb, pc in zip(a.state_dict().items(), b.state_dict().values(), c.state_dict().values()):
        assert torch.equal(pa, pb), name
        if name.endswith("weight") and ".ln" not in name and not name.startswith("ln_"):
            assert not torch.equal(pa, pc), f"{name}: another seed should give other weights"
    tokens, _ = random_batch(SMALL, 2, 8, seed=0)
    assert torch.equal(a(tokens), b(tokens))


def test_tied_embeddings_share_one_tensor_and_untied_do_not():
    tied = TinyTransformer(SMALL)
    untied = TinyTransformer(ModelConfig(**{**SMALL.__dict__, "tie_embeddings": False}))
    assert tied.lm_head.weight is tied.tok_emb.weight
    assert untied.lm_head.weight is not untied.tok_emb.weight
    assert untied.num_parameters() - tied.num_parameters() == SMALL.vocab_size * SMALL.dim
    tokens, targets = random_batch(SMALL, 2, 8)
    tied.loss(tokens, targets).backward()  # the tied weight's gradient sums both uses
    assert tied.tok_emb.weight.grad is tied.lm_head.weight.grad


def test_shapes_initial_loss_and_causality():
    model = TinyTransformer(SMALL)
    tokens, targets = random_batch(SMALL, 3, 10, seed=1)
    logits = model(tokens)
    assert logits.shape == (3, 10, SMALL.vocab_size) and logits.dtype == torch.float32
    assert abs(model.loss(tokens, targets).item() - math.log(SMALL.vocab_size)) < 0.1  # small init: near uniform
    changed = tokens.clone()
    changed[:, 6] = (changed[:, 6] + 1) % SMALL.vocab_size
    out = model(changed)
    assert torch.equal(out[:, :6], logits[:, :6]), "a later token changed earlier logits: attention is not causal"
    assert not torch.allclose(out[:, 6:], logits[:, 6:])


def test_gqa_equals_mha_with_each_kv_head_repeated():
    """n_kv_heads=2 of 4 is MHA whose heads 2i and 2i+1 read the same key/value weights (Ainslie et al. 2023)."""
    gqa_config = ModelConfig(**{**SMALL.__dict__, "n_kv_heads": 2})
    gqa, mha = TinyTransformer(gqa_config, seed=5), TinyTransformer(SMALL, seed=5)
    assert gqa.blocks[0].attn.k_proj.weight.shape == (2 * SMALL.head_dim, SMALL.dim)
    state = {}
    for name, p in gqa.state_dict().items():
        if ".k_proj." in name or ".v_proj." in name:  # [kv_heads * d, ...] -> [n_heads * d, ...]
            p = p.view(2, SMALL.head_dim, *p.shape[1:]).repeat_interleave(2, dim=0).flatten(0, 1)
        state[name] = p
    mha.load_state_dict(state)
    tokens, _ = random_batch(SMALL, 2, 9, seed=2)
    torch.testing.assert_close(gqa(tokens), mha(tokens), rtol=1e-5, atol=1e-6)
    assert gqa.num_parameters() < mha.num_parameters()
    mqa = TinyTransformer(ModelConfig(**{**SMALL.__dict__, "n_kv_heads": 1}))
    assert mqa(tokens).shape == (2, 9, SMALL.vocab_size)


def test_attention_core_matches_torch_sdpa():
    attn = TinyTransformer(SMALL).blocks[0].attn
    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 7, SMALL.dim, generator=generator) for _ in range(3))
    split = [t.view(2, 7, SMALL.n_heads, -1).transpose(1, 2) for t in (q, k, v)]
    expected = F.scaled_dot_product_attention(*split, is_causal=True).transpose(1, 2).reshape(2, 7, -1)
    torch.testing.assert_close(attn.core(q, k, v), expected, rtol=1e-5, atol=1e-6)
    # a rank holding heads 2-3 only gets exactly those heads' output
    torch.testing.assert_close(attn.core(q[..., 8:], k[..., 8:], v[..., 8:]), expected[..., 8:], rtol=1e-5, atol=1e-6)


def test_generate_is_greedy_and_deterministic():
    model = TinyTransformer(SMALL, seed=1)
    prompt, _ = random_batch(SMALL, 2, 4, seed=3)
    out = model.generate(prompt, 5)
    assert out.shape == (2, 9) and torch.equal(out[:, :4], prompt)
    assert torch.equal(out, model.generate(prompt, 5))
    assert torch.equal(out[:, 4], model(prompt)[:, -1].argmax(-1))


@pytest.mark.parametrize("n_kv_heads", [None, 2, 1])
def test_greedy_decode_with_a_kv_cache_is_decode_without_one(n_kv_heads):
    """The cache changes what is computed (one token per step), not the tokens: MHA, GQA and MQA."""
    config = ModelConfig(**{**SMALL.__dict__, "n_kv_heads": n_kv_heads, "max_seq_len": 16})
    model = TinyTransformer(config, seed=2)
    prompt, _ = random_batch(config, 3, 5, seed=4)
    with_cache = model.generate(prompt, 11, use_cache=True)
    assert with_cache.shape == (3, 16)
    assert torch.equal(with_cache, model.generate(prompt, 11))


def test_cached_logits_equal_the_whole_sequence_logits_position_by_position():
    config = ModelConfig(**{**SMALL.__dict__, "n_kv_heads": 2})
    model = TinyTransformer(config, seed=6)
    tokens, _ = random_batch(config, 2, 10, seed=5)
    cache = KVCache(config.n_layers)
    pieces = [model(tokens[:, :4], cache)] + [model(tokens[:, i:i + 1], cache) for i in range(4, 10)]  # prefill, decode
    torch.testing.assert_close(torch.cat(pieces, dim=1), model(tokens), rtol=1e-5, atol=1e-6)
    kv_bytes = 2 * config.n_layers * 2 * 10 * config.n_kv_heads * config.head_dim * 4  # K and V, layers, batch, tokens
    assert cache.length == 10 and cache.nbytes == kv_bytes
    assert cache.layers[0].keys.shape == (2, 10, config.n_kv_heads * config.head_dim)


def test_attention_core_with_more_keys_than_queries_is_the_last_rows():
    attn = TinyTransformer(SMALL).blocks[0].attn
    generator = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(2, 6, SMALL.dim, generator=generator) for _ in range(3))
    torch.testing.assert_close(attn.core(q[:, 4:], k, v), attn.core(q, k, v)[:, 4:], rtol=1e-5, atol=1e-6)


def test_a_cached_sequence_longer_than_max_seq_len_is_an_error():
    model = TinyTransformer(SMALL)
    cache = KVCache(SMALL.n_layers)
    model(torch.zeros(1, 12, dtype=torch.long), cache)
    with pytest.raises(ValueError, match="max_seq_len"):
        model(torch.zeros(1, 1, dtype=torch.long), cache)
    with pytest.raises(ValueError, match="max_seq_len"):
        model.generate(torch.zeros(1, 4, dtype=torch.long), 10, use_cache=True)


@pytest.mark.parametrize("bad", [dict(dim=30), dict(n_kv_heads=3), dict(n_kv_heads=0), dict(n_layers=0),
                                 dict(vocab_size=2.5)])
def test_config_rejects_inconsistent_sizes(bad):
    with pytest.raises(ValueError):
        ModelConfig(**{**SMALL.__dict__, **bad})


def test_sequence_longer_than_max_seq_len_is_an_error():
    with pytest.raises(ValueError, match="max_seq_len"):
        TinyTransformer(SMALL)(torch.zeros(1, 13, dtype=torch.long))


def test_n_kv_heads_is_always_the_count():
    assert ModelConfig(n_heads=4).n_kv_heads == 4 and ModelConfig(n_heads=4, n_kv_heads=2).n_kv_heads == 2
    assert ModelConfig(n_heads=4).kv_heads == 4  # the former name, still read by released exercise notebooks


GQA = ModelConfig(vocab_size=48, dim=32, n_layers=2, n_heads=4, n_kv_heads=2, max_seq_len=24)
# (query heads, KV heads) per rank: contiguous on 2 and on 4 ranks (KV heads replicated), and in any order
SPLITS = {"2 ranks": [([0, 1], [0]), ([2, 3], [1])], "4 ranks": [([0], [0]), ([1], [0]), ([2], [1]), ([3], [1])],
          "2 ranks, shuffled": [([3, 0], [1, 0]), ([2, 1], [0, 1])]}


def _tensor_parallel_block_and_decode(split):
    """On each rank: the first layer's output (a TensorParallelBlock, a fresh cache) and tp_generate's tokens and
    cache bytes."""
    query_head_ids, kv_head_ids = split[dist.get_rank()]
    model = TinyTransformer(GQA, seed=3)
    x = torch.randn(2, 5, GQA.dim, generator=torch.Generator().manual_seed(0))
    layer = TensorParallelBlock(model.blocks[0], query_head_ids, kv_head_ids, dist.get_world_size(), dist.get_rank())
    with torch.no_grad():
        out = layer(x, LayerKV())
    prompt, _ = random_batch(GQA, 2, 6, seed=1)
    tokens, cache = tp_generate(model, query_head_ids, kv_head_ids, prompt, 8)
    return out, tokens, cache.nbytes


@pytest.mark.parametrize("name", SPLITS)
def test_tensor_parallel_layers_and_decode_equal_one_process(name):
    """Every rank's TensorParallelBlock gives the one-process block's output; tp_generate gives model.generate's
    tokens, and each rank caches its own KV heads only (Megatron-LM §3; GQA past the KV heads: replicated)."""
    split = SPLITS[name]
    model = TinyTransformer(GQA, seed=3)
    x = torch.randn(2, 5, GQA.dim, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        expected = model.blocks[0](x, LayerKV())
    prompt, _ = random_batch(GQA, 2, 6, seed=1)
    tokens = model.generate(prompt, 8)
    results = distlab.launch(_tensor_parallel_block_and_decode, len(split), args=(split,), timeout=60,
                             collective_timeout=20, backend="gloo")
    for rank, (out, got_tokens, kv_bytes) in enumerate(results):
        torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-6, msg=f"{name}, rank {rank}")
        assert torch.equal(got_tokens, tokens), f"{name}, rank {rank}"
        kv_heads_here = len(split[rank][1])  # K and V, layers, batch, tokens fed (the last one never is), fp32
        assert kv_bytes == 2 * GQA.n_layers * 2 * (6 + 8 - 1) * kv_heads_here * GQA.head_dim * 4, (name, rank)


def test_one_rank_of_one_is_the_model_itself():
    """Without a process group tp_generate is one rank holding every head: the model's own cached decode."""
    model = TinyTransformer(GQA, seed=3)
    prompt, _ = random_batch(GQA, 2, 6, seed=1)
    tokens, cache = tp_generate(model, [0, 1, 2, 3], [0, 1], prompt, 8)
    assert torch.equal(tokens, model.generate(prompt, 8, use_cache=True))
    assert cache.nbytes == 2 * GQA.n_layers * 2 * (6 + 8 - 1) * GQA.n_kv_heads * GQA.head_dim * 4


def test_a_tensor_parallel_block_needs_the_kv_heads_its_query_heads_read():
    block = TinyTransformer(GQA).blocks[0]
    with pytest.raises(ValueError, match=r"query heads \[1, 2\] read KV heads \[1\]"):
        TensorParallelBlock(block, [1, 2], [0], tp=2, tp_rank=0)
    with pytest.raises(ValueError, match="MLP block 2 of 2"):
        TensorParallelBlock(block, [0, 1], [0], tp=2, tp_rank=2)


PIPELINE = ModelConfig(vocab_size=32, dim=16, n_layers=8, n_heads=2, max_seq_len=8, tie_embeddings=False)


def parts_chained(part_class, model: TinyTransformer, n: int, tokens: torch.Tensor) -> torch.Tensor:
    for k in range(n):
        tokens = part_class(model, k, n)(tokens)
    return tokens


@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_model_parts_chained_are_the_model_bit_for_bit_and_share_its_weights(n):
    model = TinyTransformer(PIPELINE, seed=0)
    tokens, _ = random_batch(PIPELINE, 4, 8, seed=1)
    assert torch.equal(parts_chained(ModelPart, model, n, tokens), model(tokens))
    owned = [w for k in range(n) for w in ModelPart(model, k, n).parameters()]
    assert len(owned) == len(list(model.parameters())) and all(
        a is b for a, b in zip(owned, model.parameters()))  # every weight once, the model's own, in its order


def test_lesson_5_derives_the_model_part_that_its_script_and_grader_import():
    """Lesson 5 writes `Part` for the learner to read; its script, the solution's harness and set 05's grader import
    `distlab.models.ModelPart`. The same weights, in the same order, and the same outputs, bit for bit."""
    lesson = load_definitions(sets.get("05_pipeline").lesson, ("Part",), {"nn": torch.nn, "torch": torch})
    model = TinyTransformer(PIPELINE, seed=0)
    tokens, _ = random_batch(PIPELINE, 4, 8, seed=1)
    for n in (1, 2, 4, 8):
        for k in range(n):
            ours, theirs = ModelPart(model, k, n), lesson["Part"](model, k, n)
            assert [name for name, _ in ours.named_parameters()] == [name for name, _ in theirs.named_parameters()]
            assert all(a is b for a, b in zip(ours.parameters(), theirs.parameters(), strict=True)), (k, n)
        assert torch.equal(parts_chained(lesson["Part"], model, n, tokens), parts_chained(ModelPart, model, n, tokens))


@pytest.mark.parametrize("hidden", [6, 7])  # exercise sets 01 and 02
def test_tied_net_has_one_tied_weight_a_frozen_layer_and_the_same_weights_each_time(hidden):
    net, again, trainable = TiedNet(hidden=hidden), TiedNet(hidden=hidden), TiedNet(hidden=hidden, frozen=False)
    assert net.out.weight is net.embed.weight and len(list(net.parameters())) == 5  # the tied weight once
    assert net.hidden.weight.shape == (hidden, 6) and net.frozen.weight.shape == (6, hidden)
    assert [name for name, w in net.named_parameters() if not w.requires_grad] == ["frozen.weight", "frozen.bias"]
    assert all(w.requires_grad for w in trainable.parameters())
    for a, b in zip(net.state_dict().values(), again.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    assert net(torch.randint(0, 11, (2, 5))).shape == (2, 5, 11)


def test_exported_from_distlab():
    assert distlab.TinyTransformer is TinyTransformer and distlab.ModelConfig is ModelConfig
    assert distlab.KVCache is KVCache
