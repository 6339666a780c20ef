"""Data-parallel training that survives crashes: it checkpoints every few steps and, started again, resumes from the
latest complete checkpoint, bit-exactly, on any number of ranks. What you would run on a cluster, where something
fails every day.

    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 DISTLAB_FAIL_AT="1:7@0,0:13@1" torchrun --standalone --nproc-per-node=2 \\
        --max-restarts=2 03_train_resume.py --dir ckpt   # rank 1 dies at step 7, then (restarted) rank 0 at step 13
    torchrun --standalone --nproc-per-node=2 03_train_resume.py --dir clean      # the same run, never failing

Both end with the same `weights digest`, with 2 ranks or any other number (the same in both commands).

TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 is for the restarts: without it, torchrun (PyTorch 2.13 still) keeps one
rendezvous store across attempts, and a restarted rank can read a peer's address left over from the previous attempt,
fail to connect, and use up a restart (pytorch/pytorch#135712). Set it for every job run with --max-restarts.

When a rank dies, torchrun stops the others and, up to --max-restarts times, starts every rank again (it sets
TORCHELASTIC_RESTART_COUNT to 1, 2, ...). Each start looks for the latest checkpoint that every rank finished writing
(rank 0 writes a COMPLETE marker after a barrier, and only then) and continues from it. Each rank saves its own shard:
the weights and optimizer state (the same on every rank under DDP) and its own random generators and data position.
Every file is written atomically (temporary file, fsync, rename), so a crash during a save never damages the
previous checkpoint. At the end rank 0 prints a digest of the weights: the same as a run that never failed.

Bit-identical also needs the same computation after the restart. DDP's first iteration all-reduces the gradients in
one bucket laid out in parameter order, later ones in buckets rebuilt in gradient-ready order; from 3 ranks on, a ring
all-reduce adds an element's values in an order that depends on its place in the buffer, so the first step after a
restart (DDP's first iteration again) would differ in the last bits. `distlab.fixed_layout_ddp` all-reduces each
parameter's gradient on its own, the same at every step. `--ddp default` (plain DDP) shows the difference: run both
commands with it and --nproc-per-node=4, and the digests differ (at 2 ranks they do not: one addition per element).

On several machines (a node's torchrun killed and started again: the job resumes), and under SLURM: README.md, "On a
real cluster". Where each rank has a GPU, `distlab.init_distributed` picks NCCL and GPU LOCAL_RANK; the model, the
data and the collectives are there, and a checkpoint also holds the GPU's random generator (dropout's, there).
"""
from __future__ import annotations

import argparse
import hashlib
import math
import os
import random
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

import distlab  # distlab.fixed_layout_ddp, and the fault injection: DISTLAB_FAIL_AT="RANK:STEP[@ATTEMPT],..."

STEPS, EVERY, GLOBAL_BATCH, N_EXAMPLES = 24, 4, 32, 512


def make_data(seed: int = 0):
    """A fixed regression task, the same on every rank: y = tanh(x . w) + noise, x in R^16."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(N_EXAMPLES, 16, generator=g)
    y = torch.tanh(x @ torch.randn(16, 1, generator=g) / 4) + 0.1 * torch.randn(N_EXAMPLES, 1, generator=g)
    return x, y


class Batches:
    """This rank's share of each global batch; a new shuffle every epoch, the same on all ranks (as DistributedSampler).
    Its state, the data position, is (epoch, position in the epoch)."""

    def __init__(self, rank: int, world_size: int, seed: int = 0):
        self.rank, self.world_size, self.seed = rank, world_size, seed
        self.epoch, self.position = 0, 0

    def next(self) -> torch.Tensor:
        order = torch.randperm(N_EXAMPLES, generator=torch.Generator().manual_seed(self.seed + self.epoch))
        ids = order[self.position:self.position + GLOBAL_BATCH][self.rank::self.world_size]
        self.position += GLOBAL_BATCH
        if self.position + GLOBAL_BATCH > N_EXAMPLES:
            self.epoch, self.position = self.epoch + 1, 0
        return ids

    def state_dict(self) -> dict:
        return {"epoch": self.epoch, "position": self.position}

    def load_state_dict(self, state: dict) -> None:
        self.epoch, self.position = state["epoch"], state["position"]


def build(rank: int, world_size: int, steps: int, ddp: str = "fixed", device: torch.device = torch.device("cpu")):
    """Everything a run starts with: the same on every start, before a checkpoint (if any) overwrites it.

    ddp: "fixed" (DDP, each parameter's gradient all-reduced on its own: exact resumption at any world size) or
    "default" (plain DDP: exact at 2 ranks only; see the docstring at the top)."""
    torch.manual_seed(0)  # the same initial weights on every rank
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 1)).to(device)
    if world_size > 1:
        model = distlab.fixed_layout_ddp(model) if ddp == "fixed" else DDP(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    def warmup_then_cosine(s):
        return min(1.0, (s + 1) / 5) * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_then_cosine)
    torch.manual_seed(1000 + rank)  # this rank's dropout masks and noise
    rngs = {"numpy": np.random.default_rng(2000 + rank), "python": random.Random(3000 + rank)}
    return model, optimizer, schedule, Batches(rank, world_size), rngs


def train_step(model, optimizer, schedule, batches, rngs, data) -> float:
    x_all, y_all = data
    ids = batches.next()                                                           # the data position moves on
    x = x_all[ids] * rngs["python"].uniform(0.9, 1.1)                              # augmentation: Python's RNG
    x = x + torch.from_numpy(rngs["numpy"].normal(0.0, 0.05, size=tuple(x.shape))).float().to(x.device)  # NumPy's
    loss = nn.functional.mse_loss(model(x), y_all[ids])                            # dropout: torch's RNG
    optimizer.zero_grad()
    loss.backward()  # DDP averages the gradients over the ranks
    optimizer.step()
    schedule.step()
    return loss.item()


def unwrap(model):
    return model.module if hasattr(model, "module") else model


def on_gpu(model) -> bool:
    return next(model.parameters()).is_cuda


def capture(step, model, optimizer, schedule, batches, rngs) -> dict:
    return {"step": step, "model": unwrap(model).state_dict(), "optimizer": optimizer.state_dict(),
            "schedule": schedule.state_dict(), "data": batches.state_dict(),
            "rng": {"torch": torch.get_rng_state(), "numpy": rngs["numpy"].bit_generator.state,
                    "python": rngs["python"].getstate(),
                    "cuda": torch.cuda.get_rng_state() if on_gpu(model) else None}}  # dropout's, on a GPU


def restore(state, model, optimizer, schedule, batches, rngs) -> int:
    unwrap(model).load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    schedule.load_state_dict(state["schedule"])
    batches.load_state_dict(state["data"])
    torch.set_rng_state(state["rng"]["torch"])
    rngs["numpy"].bit_generator.state = state["rng"]["numpy"]
    version, internal, gauss = state["rng"]["python"]
    rngs["python"].setstate((version, tuple(internal), gauss))
    if state["rng"].get("cuda") is not None:
        torch.cuda.set_rng_state(state["rng"]["cuda"])
    return state["step"]


def write_atomically(path: str, write) -> None:
    """write(f) into a temporary file beside `path`, fsync it, rename it over `path`, fsync the folder."""
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    folder = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def checkpoint_dir(root: str, step: int) -> str:
    return os.path.join(root, f"step-{step:06d}")


def save(root: str, step: int, state: dict, rank: int, world_size: int) -> None:
    """Every rank writes its shard; after a barrier rank 0 marks the checkpoint complete."""
    folder = checkpoint_dir(root, step)
    os.makedirs(folder, exist_ok=True)
    write_atomically(os.path.join(folder, f"rank{rank}.pt"), lambda f: torch.save(state, f))
    if world_size > 1:
        dist.barrier()  # every shard is on disk
    if rank == 0:
        write_atomically(os.path.join(folder, "COMPLETE"), lambda f: f.write(f"{world_size} ranks\n".encode()))


def latest_complete(root: str) -> int | None:
    """The step of the newest checkpoint marked COMPLETE (a checkpoint some rank did not finish is ignored)."""
    steps = [int(name.split("-")[1]) for name in os.listdir(root) if name.startswith("step-")
             and os.path.exists(os.path.join(root, name, "COMPLETE"))] if os.path.isdir(root) else []
    return max(steps, default=None)


def train(root: str, steps: int = STEPS, every: int = EVERY, fail=None, ddp: str = "fixed",
          device: torch.device = torch.device("cpu")) -> dict:
    """Train to `steps`, resuming from the latest complete checkpoint in `root` if there is one."""
    rank = dist.get_rank() if dist.is_initialized() else 0
    world_size = dist.get_world_size() if dist.is_initialized() else 1
    model, optimizer, schedule, batches, rngs = build(rank, world_size, steps, ddp, device)
    data = tuple(t.to(device) for t in make_data())
    latest = latest_complete(root)
    step = 0
    if latest is not None:  # (map_location: the random generators' states must be CPU tensors)
        state = torch.load(os.path.join(checkpoint_dir(root, latest), f"rank{rank}.pt"), map_location="cpu",
                           weights_only=True)
        step = restore(state, model, optimizer, schedule, batches, rngs)
    start, losses = step, {}
    while step < steps:
        if fail is not None:
            fail(step)
        losses[step] = train_step(model, optimizer, schedule, batches, rngs, data)
        step += 1
        if step % every == 0:
            save(root, step, capture(step, model, optimizer, schedule, batches, rngs), rank, world_size)
    return {"start": start, "losses": losses, "weights": {k: v.clone() for k, v in unwrap(model).state_dict().items()}}


def digest(weights: dict) -> str:
    """A fingerprint of the exact bits of every weight: equal digests mean bit-identical weights."""
    h = hashlib.sha256()
    for name in sorted(weights):
        h.update(name.encode())
        h.update(weights[name].detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True, help="checkpoint folder (shared by all starts of the job)")
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--every", type=int, default=EVERY, help="checkpoint every this many steps")
    parser.add_argument("--ddp", choices=("fixed", "default"), default="fixed",
                        help="fixed: each parameter's gradient all-reduced on its own (exact resumption at any world "
                             "size); default: plain DDP (exact at 2 ranks only)")
    args = parser.parse_args()

    attempt = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    if attempt > 0 and os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True" and os.environ.get("RANK") == "0":
        print("restarted without TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1: if the ranks fail to connect, set it "
              "(pytorch/pytorch#135712)", file=sys.stderr, flush=True)
    device = distlab.init_distributed()  # torchrun's RANK, WORLD_SIZE...; NCCL and GPU LOCAL_RANK, or gloo and CPU
    torch.set_num_threads(1)
    rank = dist.get_rank()
    result = train(args.dir, args.steps, args.every, distlab.faults_from_env(), args.ddp, device)
    if rank == 0:
        print(f"attempt {attempt}: started at step {result['start']}, trained to step {args.steps}, "
              f"final loss {result['losses'].get(args.steps - 1, float('nan')):.6f} ({device.type})")
        print(f"weights digest {digest(result['weights'])}")
    distlab.finish()  # not just destroy_process_group(): why, in distlab/shutdown.py


if __name__ == "__main__":
    main()
