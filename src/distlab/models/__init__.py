"""A tiny decoder-only Transformer: the single-process reference that lessons 4-7 split across ranks.

    config = distlab.ModelConfig(vocab_size=64, dim=32, n_layers=2, n_heads=4, n_kv_heads=2)
    model = distlab.TinyTransformer(config, seed=0)     # the same weights for the same seed, on every rank
    logits = model(tokens)                              # [batch, seq, vocab]

GPT-2's layout (Radford et al., 2019): learned positions, pre-LayerNorm blocks `x + attn(ln1(x))` then
`x + mlp(ln2(x))`, a GeLU MLP of width `mlp_ratio * dim`, a final LayerNorm, and an output layer that reuses the token
embedding (`tie_embeddings=True`) or has its own weight. Attention keeps its projections separate (`q_proj`, `k_proj`,
`v_proj`, `o_proj`: rows of q/k/v are whole heads, one after the other), which is what tensor parallelism splits "by
heads" (Megatron-LM, Shoeybi et al. 2019, §3); `n_kv_heads < n_heads` shares each key/value head between
`n_heads / n_kv_heads` query heads (grouped-query attention, Ainslie et al. 2023; `n_kv_heads=1` is multi-query).

Decoding can keep the keys and values of the tokens already seen (a KV cache, as every serving engine does; Pope et al.
2022, *Efficiently Scaling Transformer Inference*, §2): give `forward` a `KVCache` and it runs only the new tokens,
at the positions that follow the cached ones, appending their keys and values:

    cache = distlab.models.KVCache(config.n_layers)
    logits = model(prompt, cache)                        # prefill: the whole prompt, its K/V kept
    logits = model(next_token, cache)                    # decode: one token per sequence, attending to the cache

A pipeline stage's consecutive layers are a `ModelPart` (lesson 5 derives it; its script and set 05's grader cut the
model with it). One rank's share of a layer under tensor parallelism, split by heads (lesson 7 derives it; its script
and exercise set 07's grader run it), is `TensorParallelBlock`, and `tp_generate` decodes with it; which heads a rank
takes is the caller's choice. The other parallel code the lessons and exercises write, and check against this module.
`TiedNet` is the exercises' smallest model with a tied weight and a frozen layer.

One module per idea: `transformer` (the model, its KV cache, `random_batch`), `pipeline_part` (`ModelPart`),
`tensor_parallel` (`TensorParallelBlock`, `tp_generate`), `tied_net` (`TiedNet`).
"""
from .pipeline_part import ModelPart
from .tensor_parallel import TensorParallelBlock, tp_generate
from .tied_net import TiedNet
from .transformer import MLP, Attention, Block, KVCache, LayerKV, ModelConfig, TinyTransformer, random_batch

__all__ = ["ModelConfig", "TinyTransformer", "Block", "Attention", "MLP", "KVCache", "LayerKV", "ModelPart",
           "TensorParallelBlock", "TiedNet", "tp_generate", "random_batch"]
