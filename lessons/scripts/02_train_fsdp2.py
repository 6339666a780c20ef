"""Lesson 2's model trained with FSDP2 (`fully_shard`), as a standalone script: what you would run on a cluster.

    torchrun --standalone --nproc-per-node=2 02_train_fsdp2.py --out weights.pt     # 2 ranks on this machine

The same tiny MLP, batches and mixed-precision policy as the lesson (bf16 compute, fp32 sharded parameters that are
the master copy, fp32 gradients reduce-scattered). Each rank prints the model-state bytes it holds after training,
split as ZeRO does (Rajbhandari et al. 2020, section 3.1); rank 0 gathers the full weights and saves them to --out,
so that the notebook can compare them with one-process training. Where each rank has a GPU, `distlab.init_distributed`
picks NCCL and GPU LOCAL_RANK: the shards and the batches live there.
"""
from __future__ import annotations

import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

import distlab

LAYERS = [(16, 64), (64, 64), (64, 64), (64, 1)]  # (in, out) features of each nn.Linear, as in the lesson
STEPS, BATCH, LR = 5, 32, 1e-2


def make_model() -> nn.Sequential:
    """The lesson's model, the same initial weights on every rank (same seed)."""
    torch.manual_seed(0)
    modules = []
    for i, (fan_in, fan_out) in enumerate(LAYERS):
        modules.append(nn.Linear(fan_in, fan_out))
        if i < len(LAYERS) - 1:
            modules.append(nn.Tanh())
    return nn.Sequential(*modules)


def get_batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The lesson's global batch of `step` (every rank builds it, then keeps its own 1/N of the rows)."""
    generator = torch.Generator().manual_seed(step)
    x = torch.randn(BATCH, 16, generator=generator)
    return x, x[:, :1].sin() + 0.1 * torch.randn(BATCH, 1, generator=generator)


def held_bytes(model: nn.Module, optimizer: torch.optim.Optimizer) -> dict:
    """Bytes this rank stores: the storages of its parameter, gradient and optimizer-state shards (a DTensor's
    local tensor, padded rows included), each storage counted once."""
    local = lambda t: t.to_local() if hasattr(t, "to_local") else t  # noqa: E731
    def nbytes(tensors):
        storages = {local(t).untyped_storage().data_ptr(): local(t).untyped_storage().nbytes() for t in tensors}
        return sum(storages.values())
    states = [t for state in optimizer.state.values() for t in state.values() if isinstance(t, torch.Tensor)]
    return {"parameters": nbytes(model.parameters()),
            "gradients": nbytes(p.grad for p in model.parameters() if p.grad is not None),
            "optimizer_states": nbytes(states)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="where rank 0 saves the trained full weights (torch.save)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    device = distlab.init_distributed()  # torchrun's RANK, WORLD_SIZE...; NCCL and GPU LOCAL_RANK, or gloo and CPU
    rank, world_size = dist.get_rank(), dist.get_world_size()
    if BATCH % world_size:
        raise SystemExit(f"the batch of {BATCH} does not split evenly over {world_size} ranks")
    model, policy = make_model(), MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    mesh = init_device_mesh(device.type, (world_size,))  # the shards go to `device` (fully_shard moves them)
    for module in model:
        if isinstance(module, nn.Linear):
            fully_shard(module, mesh=mesh, mp_policy=policy)  # one unit per layer: gathered just in time, freed after
    fully_shard(model, mesh=mesh, mp_policy=policy)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR, foreach=False)
    for step in range(STEPS):
        x, y = (t.chunk(world_size)[rank].to(device) for t in get_batch(step))
        loss = F.mse_loss(model(x).float(), y)
        loss.backward()  # FSDP2 reduce-scatters and averages the gradients over the ranks
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)  # keep the gradient shards, so that they are counted below
    held = held_bytes(model, optimizer)
    print(f"rank {rank} of {world_size}: held " + " ".join(f"{k}={v}" for k, v in held.items()), flush=True)
    full = torch.cat([p.full_tensor().detach().flatten() for p in model.parameters()])  # a collective: all ranks
    if rank == 0:
        torch.save(full.cpu(), os.path.abspath(args.out))
        print(f"rank 0's last loss ({device.type}; on its share of the batch) {loss.item():.6f}; weights saved to "
              f"{args.out}", flush=True)
    distlab.finish()  # not just destroy_process_group(): why, in distlab/shutdown.py


if __name__ == "__main__":
    main()
