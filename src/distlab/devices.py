"""A script's backend and device under torchrun: NCCL and this rank's GPU where the node has one per rank, else gloo
and the CPU. The same lines work on a laptop, on one GPU node and on many nodes.

    device = distlab.init_distributed()   # after torchrun started this process; then model.to(device), x.to(device)

torchrun tells each process who it is through environment variables (torch.distributed.run's docs, "Environment
Variables"): RANK and WORLD_SIZE over the whole job, LOCAL_RANK and LOCAL_WORLD_SIZE on this node (node = one torchrun
agent), MASTER_ADDR and MASTER_PORT for the store. A node's GPUs are numbered from 0, so rank r on a node drives
GPU LOCAL_RANK, and NCCL needs a GPU for every rank *of this node* (LOCAL_WORLD_SIZE), not for every rank of the job.
NCCL only moves CUDA tensors: with it every tensor a collective touches must be on `device`; gloo moves CPU tensors.
"""
from __future__ import annotations

import os

import torch
import torch.distributed as dist

BACKEND_VAR = "DISTLAB_BACKEND"  # "gloo" or "nccl": overrides the choice (e.g. gloo on a GPU node, to compare)


def pick_backend(local_world_size: int) -> str:
    """'nccl' when NCCL is built in and this node has at least one GPU per local rank; 'gloo' otherwise."""
    if torch.cuda.is_available() and torch.cuda.device_count() >= local_world_size and dist.is_nccl_available():
        return "nccl"
    return "gloo"


def rank_device(backend: str, local_rank: int) -> torch.device:
    """Where this rank's tensors live: GPU `local_rank` under NCCL, the CPU under gloo."""
    return torch.device("cuda", local_rank) if backend == "nccl" else torch.device("cpu")


def init_distributed(backend: str | None = None) -> torch.device:
    """Join the process group torchrun set up (its environment variables), on the backend `pick_backend` chooses
    (or `backend`, or $DISTLAB_BACKEND), and return this rank's device; under NCCL it is also the current device."""
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    backend = backend or os.environ.get(BACKEND_VAR) or pick_backend(int(os.environ.get("LOCAL_WORLD_SIZE", "1")))
    if backend not in ("gloo", "nccl"):
        raise ValueError(f"init_distributed: backend must be 'gloo' or 'nccl', got {backend!r}")
    device = rank_device(backend, local_rank)
    # Before the group exists: torch._dynamo (which building DDP or any optimizer imports) keeps references to the
    # default group when first imported after it, so `destroy_process_group` could not join gloo's threads (shutdown.py)
    import torch._dynamo  # noqa: F401
    if backend == "nccl":
        torch.cuda.set_device(device)  # else every rank's NCCL communicator would start on GPU 0
        dist.init_process_group("nccl", device_id=device)  # device_id: the communicator is created now, eagerly
    else:
        dist.init_process_group("gloo")
    return device
