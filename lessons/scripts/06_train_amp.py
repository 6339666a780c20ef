"""Lesson 6's model trained with mixed precision under DDP, as a standalone script: what you would run on a node.

    torchrun --standalone --nproc-per-node=2 06_train_amp.py          # 2 ranks on this machine (gloo, CPU)
    torchrun --standalone --nproc-per-node=8 06_train_amp.py          # 8 GPUs of one node (NCCL)

`distlab.TinyTransformer` under `DistributedDataParallel`, its forward pass in `torch.autocast` (fp16: matmuls in 16
bits, the weights, their gradients and SGD in fp32), the loss scaled by `torch.amp.GradScaler` (dynamic loss scaling:
the grow and back-off schedule of NVIDIA's mixed-precision guide and Apex, on the constant loss scaling of
Micikevicius et al. 2018, §3.2), and DDP's gradient buckets all-reduced in fp16 by `fp16_compress_hook` (half the
bytes). Each rank learns its own batch. The script fails unless
every all-reduced step moved 2 bytes per parameter (fp16), every rank ends with the same weights (DDP's invariant), and
the loss fell; rank 0 prints the loss and the scale per step.
`--no-compress` all-reduces in fp32 (4 bytes per parameter).
"""
from __future__ import annotations

import argparse

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import fp16_compress_hook
from torch.nn.parallel import DistributedDataParallel

import distlab
from distlab.models import ModelConfig, TinyTransformer, random_batch

CONFIG = ModelConfig(vocab_size=64, dim=32, n_layers=2, n_heads=4, max_seq_len=64)
BATCH, SEQ, LR = 4, 16, 0.5


def train(model, device: str, steps: int) -> tuple[list, list, list]:
    """Autocast + GradScaler training; (losses, scales, bytes all-reduced) per step."""
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    scaler = torch.amp.GradScaler(device, init_scale=2.0**16, growth_interval=4)
    tokens, targets = (t.to(device) for t in random_batch(CONFIG, BATCH, SEQ, seed=dist.get_rank()))
    losses, scales, sent = [], [], []
    for step in range(steps):
        with torch.autocast(device, dtype=torch.float16):
            loss = F.cross_entropy(model(tokens).flatten(0, 1), targets.flatten())
        with distlab.count_comm() as comm:  # DDP all-reduces its buckets during backward
            scaler.scale(loss).backward()
        scaler.step(optimizer)  # skipped if a gradient overflowed (also in the fp16 all-reduce)
        scaler.update()
        optimizer.zero_grad()
        losses.append(loss.item())
        scales.append(scaler.get_scale())
        sent.append(comm.collective_bytes["all_reduce"])
    return losses, scales, sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--no-compress", action="store_true", help="all-reduce the gradients in fp32")
    args = parser.parse_args()
    torch.set_num_threads(1)
    device = distlab.init_distributed().type  # torchrun's RANK, WORLD_SIZE...; NCCL and GPU LOCAL_RANK, or gloo and CPU
    rank = dist.get_rank()
    model = DistributedDataParallel(TinyTransformer(CONFIG, seed=0).to(device))
    if not args.no_compress:
        model.register_comm_hook(None, fp16_compress_hook)
    losses, scales, sent = train(model, device, args.steps)
    n_params = model.module.num_parameters()
    assert all(nbytes == n_params * (4 if args.no_compress else 2) for nbytes in sent), (n_params, sent)
    weights = torch.cat([p.detach().flatten() for p in model.parameters()])
    first = weights.clone()
    dist.broadcast(first, src=0)
    assert torch.equal(weights, first), f"rank {rank}: weights differ from rank 0's"
    # each rank learns its own batch from the average step: at 2 ranks its loss falls by > 0.3 in 12 steps, at 4 by ~0.2
    assert losses[-1] < losses[0] - 0.1, f"rank {rank}: the loss did not fall: {losses}"
    if rank == 0:
        for step, (loss, scale) in enumerate(zip(losses, scales)):
            print(f"step {step:2}: loss {loss:.4f}  scale {scale:g}", flush=True)
        print(f"{dist.get_world_size()} ranks, {device}, fp16 autocast + GradScaler, gradients all-reduced in "
              f"{'fp32' if args.no_compress else 'fp16'}: {sent[-1]:,} bytes per step for {n_params:,} parameters; "
              "every rank ends with the same weights", flush=True)
    distlab.finish()  # not just destroy_process_group(): why, in distlab/shutdown.py


if __name__ == "__main__":
    main()
