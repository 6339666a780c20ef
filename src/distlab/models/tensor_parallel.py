"""One rank's share of a `Block` under tensor parallelism, split by heads, for decoding with a KV cache:
`TensorParallelBlock`, and `tp_generate`, greedy decoding with it (lesson 7 derives them)."""
from __future__ import annotations

import torch
import torch.distributed as dist
import torch.nn.functional as F

from ..topology import rank_or_zero, world_size_or_one
from .transformer import Block, KVCache, LayerKV, TinyTransformer


class TensorParallelBlock:
    """Rank `tp_rank`'s share of a `Block` under tensor parallelism over `tp` ranks (Megatron-LM, Shoeybi et al.
    2019, §3), for decoding with a KV cache. `layer(x, layer_cache)` runs the new tokens x [batch, new, dim] and
    returns the whole block's output, the same on every rank of `tp_group`.

    It holds the rows of `q_proj` of its `query_head_ids`, those of `k_proj` and `v_proj` of its `kv_head_ids`, the
    matching columns of `o_proj`, and block `tp_rank` of `tp` of the MLP (rows of `mlp.up`, columns of `mlp.down`);
    the LayerNorms and the biases of `o_proj` and `mlp.down` whole. Its attention runs on its heads alone, its
    `layer_cache` (a `LayerKV`) keeps the keys and values of its KV heads only, and the partial sums after `o_proj`
    and after the MLP are all-reduced: 2 all-reduces per layer per call (none when `tp == 1`).

    Which heads a rank takes is the caller's choice (lesson 7's `heads_of`, exercise set 07's `shard_heads`): any
    lists whose KV heads include every KV head their query heads read (query head h reads KV head
    h // (n_heads // n_kv_heads), grouped-query attention, Ainslie et al. 2023); a KV head may be on several ranks.
    """

    def __init__(self, block: Block, query_head_ids: list[int], kv_head_ids: list[int], tp: int, tp_rank: int,
                 tp_group=None):
        attn, mlp, d = block.attn, block.mlp, block.attn.head_dim
        if mlp.up.out_features % tp or not 0 <= tp_rank < tp:
            raise ValueError(f"no MLP block {tp_rank} of {tp} for an MLP of width {mlp.up.out_features}")
        rows = lambda heads: torch.cat([torch.arange(h * d, (h + 1) * d) for h in heads])  # noqa: E731
        q, kv, width = rows(query_head_ids), rows(kv_head_ids), mlp.up.out_features // tp
        mine = slice(tp_rank * width, (tp_rank + 1) * width)
        self.ln1, self.ln2, self.core, self.head_dim = block.ln1, block.ln2, attn.core, d
        self.q = attn.q_proj.weight[q], attn.q_proj.bias[q]  # a head past the weights: torch's IndexError, here
        self.k = attn.k_proj.weight[kv], attn.k_proj.bias[kv]
        self.v = attn.v_proj.weight[kv], attn.v_proj.bias[kv]
        self.o, self.o_bias = attn.o_proj.weight[:, q], attn.o_proj.bias
        self.up = mlp.up.weight[mine], mlp.up.bias[mine]
        self.down, self.down_bias = mlp.down.weight[:, mine], mlp.down.bias
        queries_per_kv_head = attn.n_heads // attn.n_kv_heads
        missing = sorted({h // queries_per_kv_head for h in query_head_ids} - set(kv_head_ids))
        if missing:
            raise ValueError(f"query heads {list(query_head_ids)} read KV heads {missing}, which are not among "
                             f"kv_head_ids {list(kv_head_ids)}")
        # the position, among this rank's KV heads, of the one each of its query heads reads
        self.kv_of_query = [list(kv_head_ids).index(h // queries_per_kv_head) for h in query_head_ids]
        self.tp, self.tp_group = tp, tp_group

    def __call__(self, x: torch.Tensor, layer_cache: LayerKV) -> torch.Tensor:
        h = self.ln1(x)
        q, k, v = F.linear(h, *self.q), F.linear(h, *self.k), F.linear(h, *self.v)
        k, v = layer_cache.extend(k, v)  # this rank's KV heads only
        k, v = self.per_query_head(k), self.per_query_head(v)
        x = x + self.all_reduce(F.linear(self.core(q, k, v), self.o)) + self.o_bias  # 1: the heads' sum
        partial = F.linear(F.gelu(F.linear(self.ln2(x), *self.up)), self.down)
        return x + self.all_reduce(partial) + self.down_bias  # 2: the MLP blocks' sum

    def per_query_head(self, k: torch.Tensor) -> torch.Tensor:
        """Keys (or values) of this rank's KV heads [b, s, kv heads * d] laid out per query head [b, s, queries * d]."""
        b, s, _ = k.shape
        return k.view(b, s, -1, self.head_dim)[:, :, self.kv_of_query].reshape(b, s, -1)

    def all_reduce(self, partial: torch.Tensor) -> torch.Tensor:
        if self.tp > 1:
            dist.all_reduce(partial, group=self.tp_group)
        return partial


@torch.no_grad()
def tp_generate(model: TinyTransformer, query_head_ids: list[int], kv_head_ids: list[int], prompt: torch.Tensor,
                n_new: int, tp_group=None) -> tuple[torch.Tensor, KVCache]:
    """Greedy decoding of `n_new` tokens after `prompt` [batch, seq] on this rank's heads, every layer a
    `TensorParallelBlock` over `tp_group` (default: every rank): (the tokens, the same on every rank and the same as
    `model.generate(prompt, n_new)`'s; this rank's `KVCache`, its KV heads only). Embedding, final LayerNorm and output
    layer stay whole on every rank. Without a process group it is one rank of one (`tp == 1`)."""
    tp, tp_rank = world_size_or_one(tp_group), rank_or_zero(tp_group)
    layers = [TensorParallelBlock(block, query_head_ids, kv_head_ids, tp, tp_rank, tp_group) for block in model.blocks]
    cache, tokens, new = KVCache(model.config.n_layers), prompt, prompt
    for _ in range(n_new):
        x = model.embed(new, cache.length)
        for layer, layer_cache in zip(layers, cache.layers):
            x = layer(x, layer_cache)
        new = model.lm_head(model.ln_f(x))[:, -1].argmax(-1, keepdim=True)
        tokens = torch.cat([tokens, new], dim=1)
    return tokens, cache
