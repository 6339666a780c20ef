"""Data-parallel training with DistributedDataParallel, as a standalone script: what you would run on a cluster.

    torchrun --standalone --nproc-per-node=2 01_train_ddp.py --epochs 5     # 2 ranks on this machine
    python 01_train_ddp.py --epochs 5                                       # 1 process: the reference

(On several machines: README.md, "On a real cluster".)

torchrun starts one process per rank and tells each who it is through environment variables (RANK, WORLD_SIZE,
LOCAL_RANK, MASTER_ADDR, MASTER_PORT); `init_process_group` reads them. Each rank then sees a different slice of every
global batch (DistributedSampler), DDP averages the gradients during backward, and every rank takes the same step:
the loss is the one-process loss, to rounding, for any number of ranks (the global batch must split evenly).
Where each rank has a GPU, `distlab.init_distributed` picks NCCL and GPU LOCAL_RANK, and the model, the batches and
every tensor a collective touches live there (NCCL only moves CUDA tensors).
"""
from __future__ import annotations

import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

import distlab


def make_dataset(n: int = 1024, seed: int = 0) -> TensorDataset:
    """A synthetic regression task: y = 2 tanh(x · w) plus a little noise, x in R^32."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 32, generator=g)
    w = torch.randn(32, 1, generator=g) / 32**0.5
    y = 2 * torch.tanh(x @ w) + 0.05 * torch.randn(n, 1, generator=g)
    return TensorDataset(x, y)


def make_model(seed: int = 0) -> nn.Module:
    """The same initial weights on every rank (same seed); DDP would also broadcast rank 0's weights to the others."""
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(32, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(), nn.Linear(256, 1))


def train(epochs: int = 5, batch_size: int = 64, lr: float = 0.1, seed: int = 0, rank: int = 0,
          world_size: int = 1, device: torch.device = torch.device("cpu")) -> list[float]:
    """Train and return the mean training loss of each epoch (over the whole dataset, all ranks together)."""
    if batch_size % world_size:
        raise ValueError(f"the global batch ({batch_size}) must split evenly over {world_size} ranks")
    dataset = make_dataset(seed=seed)
    model = make_model(seed).to(device)
    if world_size > 1:
        from torch.nn.parallel import DistributedDataParallel as DDP
        model = DDP(model)  # broadcasts rank 0's weights, then all-reduces (averages) gradients in backward
    # Rank r gets indices r, r+N, r+2N, ... of one shuffled order (the same on every rank: same seed and epoch), so
    # the global batch at step k is the same 64 examples whatever the number of ranks.
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=seed)
    loader = DataLoader(dataset, batch_size=batch_size // world_size, sampler=sampler)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)  # a new shuffle each epoch, identical on all ranks
        total = torch.zeros(2, device=device)  # (sum of losses, number of examples) seen by this rank
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()  # DDP: gradients are averaged over ranks here, bucket by bucket
            optimizer.step()
            total += torch.tensor([loss.item() * len(x), len(x)], device=device)
        if world_size > 1:
            dist.all_reduce(total)  # every rank gets the loss over the whole dataset
        losses.append((total[0] / total[1]).item())
    if world_size > 1:  # the point of data parallelism: all replicas are still identical
        flat = torch.cat([p.detach().flatten() for p in model.parameters()])
        replicas = [torch.empty_like(flat) for _ in range(world_size)]
        dist.all_gather(replicas, flat)
        assert all(torch.equal(r, flat) for r in replicas), "the replicas have drifted apart"
    return losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64, help="global batch, split over the ranks")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    distributed = "RANK" in os.environ  # set by torchrun
    # torchrun's RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT; NCCL and GPU LOCAL_RANK if each rank has a GPU, else gloo
    device = distlab.init_distributed() if distributed else torch.device("cpu")
    rank = dist.get_rank() if distributed else 0
    world_size = dist.get_world_size() if distributed else 1
    torch.set_num_threads(1)  # ranks share this machine's cores
    if rank == 0:
        print(f"training on {world_size} rank(s) ({device.type}), global batch {args.batch_size} = {world_size} x "
              f"{args.batch_size // world_size}")

    losses = train(args.epochs, args.batch_size, args.lr, args.seed, rank, world_size, device)

    if rank == 0:
        for epoch, loss in enumerate(losses):
            print(f"epoch {epoch}: loss {loss:.6f}")
        print(f"final loss {losses[-1]:.8f}")
    assert losses[-1] < 0.5 * losses[0], f"the loss did not fall: {losses}"
    if distributed:
        distlab.finish()  # not just destroy_process_group(): why, in distlab/shutdown.py (lesson 1 explains)


if __name__ == "__main__":
    main()
