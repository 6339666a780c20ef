"""Lesson 7's tensor-parallel decode as a standalone script: greedy decoding, attention and KV cache split by heads.

    torchrun --standalone --nproc-per-node=2 07_decode_tp.py                  # 2 ranks on this machine (gloo)
    torchrun --standalone --nproc-per-node=4 07_decode_tp.py --new-tokens 20  # 4 ranks: KV heads replicated
    torchrun --standalone --nproc-per-node=8 07_decode_tp.py                  # 8 GPUs of one node (NCCL)

`distlab.TinyTransformer` with grouped-query attention (8 query heads, 4 KV heads). Rank r of t keeps query heads
r*8/t ... (contiguous, as Megatron-LM splits W_Q; Shoeybi et al. 2019, §3), the KV heads those read (each rank holds
its own part of the KV cache; with t = 8 > 4 KV heads, each KV head is held by 2 ranks), the matching columns of the
output projection and a block of the MLP: 2 all-reduces per layer per token. The layer is
`distlab.models.TensorParallelBlock` (lesson 7 derives it line by line), the decode loop `distlab.models.tp_generate`;
which heads a rank takes is this script's `heads_of`. Every rank also decodes in one process (no split, no cache), and
the script fails unless its tokens are identical, its KV cache holds the bytes its heads need and it ran 2 all-reduces
per layer per token (counted by `distlab.count_comm`).
"""
from __future__ import annotations

import argparse

import torch
import torch.distributed as dist

import distlab
from distlab.models import ModelConfig, TinyTransformer, random_batch, tp_generate

CONFIG = ModelConfig(vocab_size=128, dim=64, n_layers=4, n_heads=8, n_kv_heads=4, max_seq_len=64)
BATCH, PROMPT = 3, 8


def heads_of(t: int, rank: int) -> tuple[list[int], list[int]]:
    """This rank's query heads (contiguous) and the KV heads they read (grouped-query attention)."""
    query_head_ids = list(range(rank * CONFIG.n_heads // t, (rank + 1) * CONFIG.n_heads // t))
    queries_per_kv_head = CONFIG.n_heads // CONFIG.n_kv_heads
    return query_head_ids, sorted({h // queries_per_kv_head for h in query_head_ids})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--new-tokens", type=int, default=16, help="tokens to generate after the prompt")
    args = parser.parse_args()
    torch.set_num_threads(1)
    device = distlab.init_distributed()  # torchrun's RANK, WORLD_SIZE...; NCCL and GPU LOCAL_RANK, or gloo and CPU
    t, rank = dist.get_world_size(), dist.get_rank()
    if CONFIG.n_heads % t or (CONFIG.n_kv_heads % t and t % CONFIG.n_kv_heads):
        raise SystemExit(f"{t} ranks must divide the {CONFIG.n_heads} heads, and divide or be a multiple of the "
                         f"{CONFIG.n_kv_heads} KV heads")
    prompt, _ = random_batch(CONFIG, BATCH, PROMPT, seed=0)
    one_process = TinyTransformer(CONFIG, seed=0).generate(prompt, args.new_tokens)  # the reference, on the CPU
    query_head_ids, kv_head_ids = heads_of(t, rank)
    with distlab.count_comm() as comm:  # every layer a distlab.models.TensorParallelBlock on this rank's heads
        tokens, cache = tp_generate(TinyTransformer(CONFIG, seed=0).to(device), query_head_ids, kv_head_ids,
                                    prompt.to(device), args.new_tokens)
    tokens, kv_bytes, all_reduces = tokens.cpu(), cache.nbytes, comm.collective_calls["all_reduce"]
    assert torch.equal(tokens, one_process), f"rank {rank}: other tokens than one process"
    cached = PROMPT + args.new_tokens - 1  # the last token is never fed back
    expected_kv = 2 * CONFIG.n_layers * len(kv_head_ids) * CONFIG.head_dim * 4 * BATCH * cached
    assert kv_bytes == expected_kv, f"rank {rank}: {kv_bytes} bytes of KV cache, its heads need {expected_kv}"
    assert all_reduces == 2 * CONFIG.n_layers * args.new_tokens, f"rank {rank}: {all_reduces} all-reduces"
    print(f"rank {rank}: query heads {query_head_ids}, KV heads {kv_head_ids}, {kv_bytes:,} bytes of KV cache",
          flush=True)
    dist.barrier()
    if rank == 0:
        print(f"TP={t} ({dist.get_backend()}): {args.new_tokens} tokens for {BATCH} sequences, identical to one "
              f"process; {all_reduces} all-reduces (2 per layer per token)", flush=True)
    distlab.finish()  # not just destroy_process_group(): why, in distlab/shutdown.py


if __name__ == "__main__":
    main()
