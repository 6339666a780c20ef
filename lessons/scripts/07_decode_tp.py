"""Lesson 7's tensor-parallel decode as a standalone script: greedy decoding, attention and KV cache split by heads.

    torchrun --standalone --nproc-per-node=2 07_decode_tp.py                  # 2 ranks on this machine (gloo)
    torchrun --standalone --nproc-per-node=4 07_decode_tp.py --new-tokens 20  # 4 ranks: KV heads replicated
    torchrun --standalone --nproc-per-node=8 07_decode_tp.py                  # 8 GPUs of one node (NCCL)

`distlab.TinyTransformer` with grouped-query attention (8 query heads, 4 KV heads). Rank r of t keeps query heads
r*8/t ... (contiguous, as Megatron-LM splits W_Q; Shoeybi et al. 2019, §3), the KV heads those read (each rank holds
its own part of the KV cache; with t = 8 > 4 KV heads, each KV head is held by 2 ranks), the matching columns of the
output projection and a block of the MLP: 2 all-reduces per layer per token. Every rank also decodes in one process
(no split, no cache), and the script fails unless its tokens are identical, its KV cache holds the bytes its heads
need and it ran 2 all-reduces per layer per token.
"""
from __future__ import annotations

import argparse

import torch
import torch.distributed as dist
import torch.nn.functional as F

import distlab
from distlab.models import KVCache, ModelConfig, TinyTransformer, random_batch

CONFIG = ModelConfig(vocab_size=128, dim=64, n_layers=4, n_heads=8, n_kv_heads=4, max_seq_len=64)
BATCH, PROMPT = 3, 8


def heads_of(t: int, rank: int) -> tuple[list[int], list[int]]:
    """This rank's query heads (contiguous) and the KV heads they read (grouped-query attention)."""
    query = list(range(rank * CONFIG.n_heads // t, (rank + 1) * CONFIG.n_heads // t))
    group = CONFIG.n_heads // CONFIG.kv_heads
    return query, sorted({h // group for h in query})


def shard_layer(block, query_heads: list[int], kv_heads: list[int], t: int, rank: int) -> dict:
    """This rank's weights of one Block: q/k/v rows of its heads, o_proj columns, an MLP block; the rest whole."""
    d, attn, mlp = block.attn.head_dim, block.attn, block.mlp
    rows = lambda heads: torch.cat([torch.arange(h * d, (h + 1) * d) for h in heads])  # noqa: E731
    q, kv, width = rows(query_heads), rows(kv_heads), mlp.up.out_features // t
    mine = slice(rank * width, (rank + 1) * width)
    return {"ln1": (block.ln1.weight, block.ln1.bias), "ln2": (block.ln2.weight, block.ln2.bias),
            "q": (attn.q_proj.weight[q], attn.q_proj.bias[q]), "k": (attn.k_proj.weight[kv], attn.k_proj.bias[kv]),
            "v": (attn.v_proj.weight[kv], attn.v_proj.bias[kv]), "o": (attn.o_proj.weight[:, q], attn.o_proj.bias),
            "up": (mlp.up.weight[mine], mlp.up.bias[mine]), "down": (mlp.down.weight[:, mine], mlp.down.bias)}


def layer_step(p: dict, x: torch.Tensor, layer_cache, attention_core) -> torch.Tensor:
    """One layer on this rank's heads for the new tokens; their keys and values join this rank's cache."""
    norm = lambda name, h: F.layer_norm(h, h.shape[-1:], *p[name])  # noqa: E731
    h = norm("ln1", x)
    q, k, v = (F.linear(h, *p[name]) for name in "qkv")
    k, v = layer_cache.extend(k, v)
    partial = F.linear(attention_core(q, k, v), p["o"][0])
    dist.all_reduce(partial)
    x = x + partial + p["o"][1]
    partial = F.linear(F.gelu(F.linear(norm("ln2", x), *p["up"])), p["down"][0])
    dist.all_reduce(partial)
    return x + partial + p["down"][1]


@torch.no_grad()
def tp_generate(model: TinyTransformer, prompt: torch.Tensor, n_new: int, device) -> tuple[torch.Tensor, int, int]:
    """Greedy decoding on every rank of the group: (tokens, bytes of this rank's KV cache, all-reduces run)."""
    t, rank = dist.get_world_size(), dist.get_rank()
    query_heads, kv_heads = heads_of(t, rank)
    layers = [shard_layer(block, query_heads, kv_heads, t, rank) for block in model.blocks]
    cache, tokens, new, all_reduces = KVCache(CONFIG.n_layers), prompt.to(device), prompt.to(device), 0
    for _ in range(n_new):
        x = model.embed(new, cache.length)
        for p, layer_cache in zip(layers, cache.layers):
            x = layer_step(p, x, layer_cache, model.blocks[0].attn.core)
            all_reduces += 2
        new = model.lm_head(model.ln_f(x))[:, -1].argmax(-1, keepdim=True)
        tokens = torch.cat([tokens, new], dim=1)
    return tokens.cpu(), cache.nbytes, all_reduces


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--new-tokens", type=int, default=16, help="tokens to generate after the prompt")
    args = parser.parse_args()
    torch.set_num_threads(1)
    device = distlab.init_distributed()  # torchrun's RANK, WORLD_SIZE...; NCCL and GPU LOCAL_RANK, or gloo and CPU
    t, rank = dist.get_world_size(), dist.get_rank()
    if CONFIG.n_heads % t or (CONFIG.kv_heads % t and t % CONFIG.kv_heads):
        raise SystemExit(f"{t} ranks must divide the {CONFIG.n_heads} heads, and divide or be a multiple of the "
                         f"{CONFIG.kv_heads} KV heads")
    prompt, _ = random_batch(CONFIG, BATCH, PROMPT, seed=0)
    one_process = TinyTransformer(CONFIG, seed=0).generate(prompt, args.new_tokens)  # the reference, on the CPU
    tokens, kv_bytes, all_reduces = tp_generate(TinyTransformer(CONFIG, seed=0).to(device), prompt, args.new_tokens,
                                                device)
    assert torch.equal(tokens, one_process), f"rank {rank}: other tokens than one process"
    cached = PROMPT + args.new_tokens - 1  # the last token is never fed back
    expected_kv = 2 * CONFIG.n_layers * len(heads_of(t, rank)[1]) * CONFIG.head_dim * 4 * BATCH * cached
    assert kv_bytes == expected_kv, f"rank {rank}: {kv_bytes} bytes of KV cache, its heads need {expected_kv}"
    assert all_reduces == 2 * CONFIG.n_layers * args.new_tokens
    print(f"rank {rank}: query heads {heads_of(t, rank)[0]}, KV heads {heads_of(t, rank)[1]}, {kv_bytes:,} bytes of "
          f"KV cache", flush=True)
    dist.barrier()
    if rank == 0:
        print(f"TP={t} ({dist.get_backend()}): {args.new_tokens} tokens for {BATCH} sequences, identical to one "
              f"process; {all_reduces} all-reduces (2 per layer per token)", flush=True)
    distlab.finish()  # not just destroy_process_group(): why, in distlab/shutdown.py


if __name__ == "__main__":
    main()
