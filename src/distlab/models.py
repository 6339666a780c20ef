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
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

from .topology import rank_or_zero, world_size_or_one

__all__ = ["ModelConfig", "TinyTransformer", "Block", "Attention", "MLP", "KVCache", "LayerKV", "ModelPart",
           "TensorParallelBlock", "TiedNet", "tp_generate", "random_batch"]


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of a `TinyTransformer`. `n_kv_heads=None` means one key/value head per query head (plain MHA): it is then
    set to `n_heads`, so that `n_kv_heads` is always the count."""

    vocab_size: int = 64
    dim: int = 32
    n_layers: int = 2
    n_heads: int = 4
    n_kv_heads: int | None = None
    mlp_ratio: int = 4
    max_seq_len: int = 64
    tie_embeddings: bool = True
    bias: bool = True

    def __post_init__(self):
        for name in ("vocab_size", "dim", "n_layers", "n_heads", "mlp_ratio", "max_seq_len"):
            if not (isinstance(getattr(self, name), int) and getattr(self, name) > 0):
                raise ValueError(f"ModelConfig.{name} must be a positive int, got {getattr(self, name)!r}")
        if self.dim % self.n_heads:
            raise ValueError(f"dim={self.dim} is not divisible by n_heads={self.n_heads}")
        n_kv_heads = self.n_heads if self.n_kv_heads is None else self.n_kv_heads
        if not 0 < n_kv_heads <= self.n_heads or self.n_heads % n_kv_heads:
            raise ValueError(f"n_kv_heads={self.n_kv_heads} must divide n_heads={self.n_heads}")
        object.__setattr__(self, "n_kv_heads", n_kv_heads)  # frozen: set once, here

    @property
    def kv_heads(self) -> int:
        """`n_kv_heads`, for exercise notebooks already handed out (set 07's harness cell reads `config.kv_heads`)."""
        return self.n_kv_heads

    @property
    def head_dim(self) -> int:
        return self.dim // self.n_heads


class LayerKV:
    """One layer's keys and values of every token seen so far: `keys`, `values` [batch, tokens, heads * head_dim],
    with the key/value heads this process computes (all of them in one process, a rank's own under tensor
    parallelism: the widths come from what `extend` is given)."""

    def __init__(self):
        self.keys: torch.Tensor | None = None
        self.values: torch.Tensor | None = None

    @property
    def length(self) -> int:
        return 0 if self.keys is None else self.keys.shape[1]

    @property
    def nbytes(self) -> int:
        return 0 if self.keys is None else self.keys.nbytes + self.values.nbytes

    def extend(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Append the new tokens' keys and values; return every token's (cached ones first)."""
        self.keys = k if self.keys is None else torch.cat([self.keys, k], dim=1)
        self.values = v if self.values is None else torch.cat([self.values, v], dim=1)
        return self.keys, self.values


class KVCache:
    """The KV cache of `n_layers` layers (a `LayerKV` each, in `layers`); `length` tokens per sequence so far."""

    def __init__(self, n_layers: int):
        self.layers = [LayerKV() for _ in range(n_layers)]

    @property
    def length(self) -> int:
        return self.layers[0].length

    @property
    def nbytes(self) -> int:
        return sum(layer.nbytes for layer in self.layers)


class Attention(nn.Module):
    """Causal self-attention with `n_heads` query heads and `n_kv_heads` key/value heads (GQA when fewer)."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = config.n_heads, config.n_kv_heads, config.head_dim
        self.q_proj = nn.Linear(config.dim, self.n_heads * self.head_dim, bias=config.bias)
        self.k_proj = nn.Linear(config.dim, self.n_kv_heads * self.head_dim, bias=config.bias)
        self.v_proj = nn.Linear(config.dim, self.n_kv_heads * self.head_dim, bias=config.bias)
        self.o_proj = nn.Linear(self.n_heads * self.head_dim, config.dim, bias=config.bias)

    def forward(self, x: torch.Tensor, cache: LayerKV | None = None) -> torch.Tensor:
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        if cache is not None:
            k, v = cache.extend(k, v)
        return self.o_proj(self.core(q, k, v))

    def core(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """softmax(q k^T / sqrt(d)) v per head, causal; inputs and output are [batch, seq, heads * head_dim].

        The number of heads is read from the inputs' widths, so a rank holding some whole heads calls it as is.
        Keys and values may be longer than the queries (a KV cache): the queries are then the last tokens."""
        b, s, _ = q.shape
        s_kv = k.shape[1]
        q = q.view(b, s, -1, self.head_dim).transpose(1, 2)  # [b, heads, s, d]
        k = k.view(b, s_kv, -1, self.head_dim).transpose(1, 2)
        v = v.view(b, s_kv, -1, self.head_dim).transpose(1, 2)
        if k.shape[1] != q.shape[1]:  # GQA: query head i reads key/value head i // queries_per_kv_head
            queries_per_kv_head = q.shape[1] // k.shape[1]
            k, v = k.repeat_interleave(queries_per_kv_head, dim=1), v.repeat_interleave(queries_per_kv_head, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        causal = torch.ones(s, s_kv, dtype=torch.bool, device=q.device).tril(s_kv - s)  # query i is token s_kv-s+i
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        return (weights @ v).transpose(1, 2).reshape(b, s, -1)


class MLP(nn.Module):
    """up (dim -> mlp_ratio * dim), GeLU, down (-> dim)."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.up = nn.Linear(config.dim, config.mlp_ratio * config.dim, bias=config.bias)
        self.down = nn.Linear(config.mlp_ratio * config.dim, config.dim, bias=config.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    """A pre-LN Transformer layer: x + attn(ln1(x)), then x + mlp(ln2(x))."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.ln1, self.attn = nn.LayerNorm(config.dim), Attention(config)
        self.ln2, self.mlp = nn.LayerNorm(config.dim), MLP(config)

    def forward(self, x: torch.Tensor, cache: LayerKV | None = None) -> torch.Tensor:
        h = self.ln1(x)  # without a cache, attn gets one input (DTensor's input hooks expect as many as layouts)
        x = x + (self.attn(h) if cache is None else self.attn(h, cache))
        return x + self.mlp(self.ln2(x))


class TinyTransformer(nn.Module):
    """A decoder-only language model whose weights depend only on `config` and `seed` (not on the global RNG).

    forward(tokens [batch, seq] of ints) -> logits [batch, seq, vocab_size] (float32).
    """

    def __init__(self, config: ModelConfig | None = None, seed: int = 0):
        super().__init__()
        self.config = config = ModelConfig() if config is None else config
        self.tok_emb = nn.Embedding(config.vocab_size, config.dim)
        self.pos_emb = nn.Embedding(config.max_seq_len, config.dim)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.ln_f = nn.LayerNorm(config.dim)
        self.lm_head = nn.Linear(config.dim, config.vocab_size, bias=False)
        if config.tie_embeddings:
            self.lm_head.weight = self.tok_emb.weight
        self.reset_parameters(seed)

    @torch.no_grad()
    def reset_parameters(self, seed: int = 0) -> None:
        """GPT-2's initialisation from a private generator: N(0, 0.02) weights, output projections scaled by
        1/sqrt(2 n_layers), zero biases, LayerNorms at (1, 0). Same seed, same weights, in any process."""
        generator = torch.Generator().manual_seed(seed)
        residual_std = 0.02 / math.sqrt(2 * self.config.n_layers)
        for name, p in self.named_parameters():  # each tensor once (a tied weight is listed once), in a fixed order
            if name.endswith("bias"):
                p.zero_()
            elif ".ln" in name or name.startswith("ln_"):
                p.fill_(1.0)
            else:
                std = residual_std if name.endswith(("o_proj.weight", "down.weight")) else 0.02
                p.copy_(torch.randn(p.shape, generator=generator) * std)

    def forward(self, tokens: torch.Tensor, cache: KVCache | None = None) -> torch.Tensor:
        return self.lm_head(self.hidden(tokens, cache))

    def hidden(self, tokens: torch.Tensor, cache: KVCache | None = None) -> torch.Tensor:
        """The final hidden states [batch, seq, dim] (after ln_f), before the output layer. With a `cache`, the
        tokens follow the cached ones (positions from `cache.length` on) and their keys and values are appended."""
        start = 0 if cache is None else cache.length
        x = self.embed(tokens, start)
        for i, block in enumerate(self.blocks):
            x = block(x) if cache is None else block(x, cache.layers[i])
        return self.ln_f(x)

    def embed(self, tokens: torch.Tensor, start: int = 0) -> torch.Tensor:
        """Token plus position embeddings of `tokens` [batch, seq] at positions start, start + 1, ..."""
        if start + tokens.shape[-1] > self.config.max_seq_len:
            raise ValueError(f"sequence of {start + tokens.shape[-1]} tokens is longer than max_seq_len="
                             f"{self.config.max_seq_len}")
        positions = torch.arange(start, start + tokens.shape[-1], device=tokens.device)
        return self.tok_emb(tokens) + self.pos_emb(positions)

    def loss(self, tokens: torch.Tensor, targets: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
        """Mean next-token cross-entropy of `targets` (same shape as `tokens`)."""
        logits = self(tokens)
        return F.cross_entropy(logits.flatten(0, -2), targets.flatten(), ignore_index=ignore_index)

    @torch.no_grad()
    def generate(self, tokens: torch.Tensor, n_new: int, use_cache: bool = False) -> torch.Tensor:
        """Greedy decoding of `n_new` tokens after `tokens` [batch, seq]. Without a cache each step recomputes the
        whole prefix (its last max_seq_len tokens); with one (`use_cache=True`) the prompt runs once (prefill), then
        each step runs one token per sequence (decode) and the sequence must fit in max_seq_len."""
        cache = KVCache(self.config.n_layers) if use_cache else None
        step_input = tokens
        for _ in range(n_new):
            window = step_input if use_cache else step_input[:, -self.config.max_seq_len:]
            next_token = self(window, cache)[:, -1].argmax(-1, keepdim=True)
            tokens = torch.cat([tokens, next_token], dim=1)
            step_input = next_token if use_cache else tokens
        return tokens

    def num_parameters(self) -> int:
        """Distinct parameters (a tied weight once)."""
        return sum(p.numel() for p in self.parameters())


class ModelPart(nn.Module):
    """Model part k of n of a `TinyTransformer`, for a pipeline: the embeddings if k = 0, layers k*L/n ...
    (k+1)*L/n - 1, and the final LayerNorm and output layer if k = n - 1 (the model's own modules, shared, not copied:
    running parts 0 ... n-1 in turn is the model, bit for bit). forward: tokens [b, s] (part 0) or activations
    [b, s, dim] -> activations, or logits (the last part).

    Lesson 5 derives it (its `Part`, checked equal to this one in tests/test_models.py); its script and exercise set
    05's grader cut the model with it. Consecutive parts, as GPipe (Huang et al. 2019) and Megatron-LM's pipeline
    (Narayanan et al. 2021, §2.2) cut a model.
    """

    def __init__(self, model: TinyTransformer, k: int, n: int):
        super().__init__()
        layers = model.config.n_layers // n
        self.first, self.last = k == 0, k == n - 1
        self.tok_emb, self.pos_emb = (model.tok_emb, model.pos_emb) if self.first else (None, None)
        self.blocks = model.blocks[k * layers:(k + 1) * layers]
        self.ln_f, self.lm_head = (model.ln_f, model.lm_head) if self.last else (None, None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.first:
            x = self.tok_emb(x) + self.pos_emb(torch.arange(x.shape[-1], device=x.device))
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x)) if self.last else x


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


class TiedNet(nn.Module):
    """A tiny language model with the two things a gradient synchroniser or a sharded optimizer must get right: the
    output layer reuses the embedding's weight (one parameter, reached twice), and the layer `frozen` has no gradient
    unless `frozen=False`. embed [vocab, dim] -> hidden [dim -> hidden] -> tanh -> frozen [hidden -> dim] -> out.

    Exercise sets 01 (`hidden=6`: every layer dim wide) and 02 (`hidden=7`: 42 + 7 elements, nothing divides evenly
    over the ranks) train it against one process. It seeds torch's global RNG with 0 and draws its weights from it,
    so every rank builds the same net.
    """

    def __init__(self, vocab: int = 11, dim: int = 6, hidden: int = 6, frozen: bool = True):
        super().__init__()
        torch.manual_seed(0)
        self.embed = nn.Embedding(vocab, dim)
        self.hidden = nn.Linear(dim, hidden)
        self.frozen = nn.Linear(hidden, dim)
        self.frozen.requires_grad_(not frozen)
        self.out = nn.Linear(dim, vocab, bias=False)
        self.out.weight = self.embed.weight  # tied

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.out(self.frozen(torch.tanh(self.hidden(self.embed(tokens)))))


def random_batch(config: ModelConfig, batch: int, seq: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """(tokens, targets) for next-token prediction: random tokens, targets shifted by one, from a private generator."""
    generator = torch.Generator().manual_seed(seed)
    data = torch.randint(0, config.vocab_size, (batch, seq + 1), generator=generator)
    return data[:, :-1], data[:, 1:]

