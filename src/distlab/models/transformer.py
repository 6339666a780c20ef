"""The single-process reference model: `ModelConfig`, `TinyTransformer` (GPT-2's layout, grouped-query attention),
its KV cache (`KVCache`, a `LayerKV` per layer) and `random_batch`. The package's docstring (distlab.models) says
more."""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


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


def random_batch(config: ModelConfig, batch: int, seq: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """(tokens, targets) for next-token prediction: random tokens, targets shifted by one, from a private generator."""
    generator = torch.Generator().manual_seed(seed)
    data = torch.randint(0, config.vocab_size, (batch, seq + 1), generator=generator)
    return data[:, :-1], data[:, 1:]
