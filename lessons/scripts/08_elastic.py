"""Elastic data-parallel training: when a node dies the job goes on, smaller, from its last checkpoint, resharded,
with the same global batch. The same command on every node (here: two), as on a real cluster:

    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun --nnodes=1:2 --nproc-per-node=2 --max-restarts=3 \\
        --rdzv-backend=c10d --rdzv-endpoint=$HEAD:29500 --rdzv-id=$JOB \\
        --rdzv-conf=keep_alive_interval=1,keep_alive_max_attempt=3,last_call_timeout=2,join_timeout=60 \\
        08_elastic.py --dir $CKPT        # $HEAD: the node that hosts the rendezvous (it must survive)

Kill the other node (its torchrun and its ranks) mid-training: the survivors' next collective fails, their torchrun
restarts them (one of --max-restarts), the rendezvous drops the dead node once it missed keep_alive_max_attempt
heartbeats, closes at one node after last_call_timeout, and the new ranks load the newest complete checkpoint,
written by 4 ranks, onto 2 (DCP reshards on load: lesson 3, section 3). The --rdzv-conf values and what they shorten:
src/distlab/elastic.py, which runs this on one machine (lesson 8, section 2; tests/test_elastic.py).

The global batch stays GLOBAL_BATCH at every size: each rank takes --micro-batch examples per forward, and the
accumulation steps are GLOBAL_BATCH / (world size x micro-batch); the script refuses a world size that does not
divide it. Keeping the batch (rather than rescaling the learning rate to a new batch, Goyal et al. 2017, §2.1)
keeps the optimisation the same: the same gradient up to rounding, the same schedule in steps.

The state is sharded (FSDP2's `fully_shard`: each rank holds 1/world-size of every parameter and of AdamW's moments)
and saved with DCP every --every steps into `step-N.partial`, renamed to `step-N` by rank 0 once `dcp.save` has
returned on it (its shards, every rank's, and DCP's `.metadata`, written last). A kill mid-save leaves a `.partial`
folder that no start takes for a checkpoint. Nothing is random after the initial weights (the data is a fixed
function of the step), so the run depends on the world size only through the order of floating-point additions.
"""
from __future__ import annotations

import argparse
import math
import os
import shutil
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn as nn
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.fsdp import fully_shard

import distlab  # init_distributed, finish, and the fault injection: DISTLAB_FAIL_AT="RANK:STEP[:stop][@ATTEMPT],..."

STEPS, EVERY, GLOBAL_BATCH, MICRO_BATCH, N_EXAMPLES = 16, 4, 32, 8, 512


def accumulation_steps(global_batch: int, world_size: int, micro_batch: int) -> int:
    """Micro-batches each rank adds up per step so that a step sees `global_batch` examples; ValueError if none does."""
    if global_batch % (world_size * micro_batch):
        raise ValueError(f"cannot keep the global batch of {global_batch} on {world_size} ranks: {world_size} ranks x "
                         f"{micro_batch} examples does not divide it (choose --micro-batch or the node count)")
    return global_batch // (world_size * micro_batch)


def make_data(seed: int = 0):
    """A fixed regression task: y = tanh(x . w) + noise, x in R^16 (lesson 3's)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(N_EXAMPLES, 16, generator=g)
    y = torch.tanh(x @ torch.randn(16, 1, generator=g) / 4) + 0.1 * torch.randn(N_EXAMPLES, 1, generator=g)
    return x, y


def batch_ids(step: int) -> torch.Tensor:
    """The global batch of `step`: its GLOBAL_BATCH example ids, whatever the world size (a new order each epoch)."""
    per_epoch = N_EXAMPLES // GLOBAL_BATCH
    order = torch.randperm(N_EXAMPLES, generator=torch.Generator().manual_seed(step // per_epoch))
    return order[(step % per_epoch) * GLOBAL_BATCH:][:GLOBAL_BATCH]


def learning_rate(step: int, steps: int) -> float:
    """Warm-up, then cosine decay: a function of the step alone, so a resumed run needs no scheduler state."""
    return 3e-3 * min(1.0, (step + 1) / 4) * 0.5 * (1 + math.cos(math.pi * step / steps))


def build(group, device: torch.device):
    """The model sharded over `group` (FSDP2), and AdamW over its shards: the same on every start."""
    torch.manual_seed(0)  # the same full weights on every rank, before fully_shard keeps each rank's shard
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
    fully_shard(model, mesh=DeviceMesh.from_group(group, device.type))
    return model, torch.optim.AdamW(model.parameters(), lr=learning_rate(0, STEPS), weight_decay=0.01)


def train_step(model, optimizer, data, step: int, steps: int, accumulation: int, micro_batch: int, group) -> float:
    """One optimizer step on the global batch of `step`; returns its mean loss (the same number at any world size)."""
    x_all, y_all = data
    rank, world_size = dist.get_rank(group), dist.get_world_size(group)
    ids = batch_ids(step)
    total = torch.zeros((), device=x_all.device)
    for m in range(accumulation):  # micro-batch m of rank r: the global batch's slice number m * world_size + r
        mine = ids[(m * world_size + rank) * micro_batch:][:micro_batch]
        model.set_requires_gradient_sync(m == accumulation - 1)  # reduce-scatter the gradients once, at the last
        loss = nn.functional.mse_loss(model(x_all[mine]), y_all[mine]) / accumulation
        loss.backward()  # FSDP averages over the ranks: the mean over all GLOBAL_BATCH examples
        total += loss.detach()
    for param_group in optimizer.param_groups:
        param_group["lr"] = learning_rate(step, steps)
    optimizer.step()
    optimizer.zero_grad()
    dist.all_reduce(total, group=group)
    return total.item() / world_size


def checkpoint_dir(root: str, step: int) -> str:
    return os.path.join(root, f"step-{step:06d}")


def latest_complete(root: str) -> int | None:
    """The newest `step-N` folder (a `.partial` one is a save that did not finish) that holds DCP's `.metadata`."""
    names = os.listdir(root) if os.path.isdir(root) else []
    return max((int(name[5:]) for name in names if name.startswith("step-") and name[5:].isdigit()
                and os.path.exists(os.path.join(root, name, ".metadata"))), default=None)


def save(root: str, step: int, model, optimizer, group) -> None:
    """DCP into `step-N.partial` (each rank its shards), then rank 0 renames it `step-N`: complete, or not there."""
    final = checkpoint_dir(root, step)
    partial = final + ".partial"
    if dist.get_rank(group) == 0:
        shutil.rmtree(partial, ignore_errors=True)  # left by an attempt that died in this save: start it afresh
    dist.barrier(group=group)
    model_state, optimizer_state = get_state_dict(model, optimizer)  # sharded: DTensors, this rank's slices
    dcp.save({"model": model_state, "optimizer": optimizer_state, "step": step,
              "written_by": dist.get_world_size(group)}, checkpoint_id=partial, process_group=group)
    if dist.get_rank(group) == 0:  # dcp.save returned on the coordinator: every shard and .metadata are written
        os.rename(partial, final)  # atomic on one filesystem
        folder = os.open(root, os.O_RDONLY)
        try:
            os.fsync(folder)  # the rename itself on disk
        finally:
            os.close(folder)


def load(root: str, step: int, model, optimizer, group) -> dict:
    """Load checkpoint `step` into this world's shards (DCP reads each rank's slices from whichever files hold
    them: resharding); returns the saved step and how many ranks wrote it."""
    model_state, optimizer_state = get_state_dict(model, optimizer)  # where to load into: this world's sharding
    state = {"model": model_state, "optimizer": optimizer_state, "step": -1, "written_by": -1}
    dcp.load(state, checkpoint_id=checkpoint_dir(root, step), process_group=group)
    set_state_dict(model, optimizer, model_state_dict=state["model"], optim_state_dict=state["optimizer"])
    return {"step": state["step"], "written_by": state["written_by"]}


def next_attempt(root: str, world_size: int) -> int:
    """The job's attempt number, counted in the checkpoint folder (rank 0 appends a line at each start)."""
    path = os.path.join(root, "attempts.txt")
    attempt = len(open(path).readlines()) if os.path.exists(path) else 0
    with open(path, "a") as f:
        f.write(f"{world_size}\n")
    return attempt


def train(root: str, steps: int = STEPS, every: int = EVERY, micro_batch: int = MICRO_BATCH, fail=None,
          group=None, device: torch.device = torch.device("cpu"), say=print) -> dict:
    """Train to `steps` on `group`'s ranks (default: all), resuming from the newest complete checkpoint in `root`."""
    group = group or dist.group.WORLD
    rank, world_size = dist.get_rank(group), dist.get_world_size(group)
    accumulation = accumulation_steps(GLOBAL_BATCH, world_size, micro_batch)
    model, optimizer = build(group, device)
    data = tuple(t.to(device) for t in make_data())
    os.makedirs(root, exist_ok=True)
    latest = latest_complete(root)
    saved = load(root, latest, model, optimizer, group) if latest is not None else {"step": 0, "written_by": None}
    start = step = saved["step"]
    attempt = next_attempt(root, world_size) if rank == 0 else None
    if rank == 0:
        source = f"from the checkpoint written by {saved['written_by']} ranks" if latest is not None else "(fresh)"
        restarts = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")  # torchrun's, on this node
        say(f"attempt {attempt}: {world_size} ranks, resumed at step {start} {source}; global batch {GLOBAL_BATCH} "
            f"= {world_size} ranks x {micro_batch} x {accumulation} accumulation steps; torchrun restart {restarts}",
            flush=True)
    losses = {}
    while step < steps:
        if fail is not None:
            fail(step)
        losses[step] = train_step(model, optimizer, data, step, steps, accumulation, micro_batch, group)
        if rank == 0:
            say(f"attempt {attempt}: step {step} loss {losses[step]!r}", flush=True)  # exact: repr
        step += 1
        if step % every == 0:
            save(root, step, model, optimizer, group)
    if rank == 0:
        say(f"attempt {attempt}: finished at step {steps} on {world_size} ranks ({device.type})", flush=True)
    return {"start": start, "world_size": world_size, "accumulation": accumulation, "losses": losses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True, help="checkpoint folder, on a filesystem every node sees")
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--every", type=int, default=EVERY, help="checkpoint every this many steps")
    parser.add_argument("--micro-batch", type=int, default=MICRO_BATCH, help="examples per rank per forward")
    parser.add_argument("--collective-timeout", type=float, default=60.0,
                        help="seconds a collective waits for a peer (gloo's default: 30 min). A machine that dies "
                             "sends no TCP reset: its peers learn it only from this timeout")
    args = parser.parse_args()

    device = distlab.init_distributed()  # torchrun's RANK, WORLD_SIZE...; NCCL and GPU LOCAL_RANK, or gloo and CPU
    torch.set_num_threads(1)
    group = dist.new_group(timeout=timedelta(seconds=args.collective_timeout))  # every rank, with that timeout
    try:
        accumulation_steps(GLOBAL_BATCH, dist.get_world_size(), args.micro_batch)
    except ValueError as refusal:
        raise SystemExit(f"rank {dist.get_rank()}: {refusal}") from None
    train(args.dir, args.steps, args.every, args.micro_batch, distlab.faults_from_env(), group, device)
    del group
    distlab.finish()  # not just destroy_process_group(): why, in distlab/shutdown.py


if __name__ == "__main__":
    main()
