"""How a distributed script ends: `distlab.finish()`, its last line on every rank.

    device = distlab.init_distributed()   # first
    losses = train(...)                   # the models, optimizers and DDP wrappers live inside train()
    distlab.finish()                      # last

Why not just `dist.destroy_process_group()` (torch 2.13, gloo): DDP launches its all-reduces from inside
`backward()`, and each launch captures the thread's state, which during a backward holds a Python object
(`torch.autograd.graph._engine_run_backward` stashes a `contextvars` context there). Gloo's worker threads
(`pt_gloo_runloop`) drop their reference to a finished all-reduce a moment *after* the main thread has been told it
finished; dropping that Python object needs the GIL. If the main thread is already shutting the interpreter down by
then, Python ends the worker thread inside a C++ destructor and C++ aborts the process: "terminate called without an
active exception", SIGABRT, after the script's last line (a small DDP script: 3 runs of 50 in benchmarks/bench_exit.py,
5 of 30 in another soak).
`destroy_process_group()` would join those threads first, but only if nothing else still holds the group: a DDP model
still referenced does, and so did `torch._dynamo` in 2.13 when first imported after the group was made (building DDP
or any optimizer imports it), which is why `init_distributed` imports it first. Upstream: pytorch/pytorch#190489 (the
abort without destroy) and the abandoned PR #179291 (gloo threads holding Python references at finalisation).

So `finish()` waits for every rank, drops what nothing references any more, destroys the group (its worker threads
are joined, with the GIL released, while Python is whole) and checks that no gloo worker thread is left. If one is
(the script still references a DDP model or a group of its own), it ends the process itself, exit code 0, after
flushing stdout and stderr: Python's shutdown never meets a live worker thread.
"""
from __future__ import annotations

import gc
import os
import sys

import torch
import torch.distributed as dist

from .launching import _worker

GLOO_THREAD = "pt_gloo_runloop"  # the name torch gives each gloo worker thread (c10::setThreadName)


def gloo_threads() -> int | None:
    """How many gloo worker threads this process has now; None where the OS does not list threads (not Linux)."""
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return None
    count = 0
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/comm") as f:
                count += f.read().strip() == GLOO_THREAD
        except OSError:  # the thread ended while we looked
            pass
    return count


def finish() -> None:
    """Leave the process group cleanly: the last line of a distributed script, on every rank.

    1. A barrier: every rank has reached the end, so no peer still sends to this one (the group's timeout bounds it;
       a rank that raised never gets here, and torchrun stops the others).
    2. `gc.collect()`, then `destroy_process_group()`: a DDP model that went out of scope no longer holds the group,
       so destroying it joins gloo's worker threads while Python is whole.
    3. If a gloo worker thread is still alive (something still references a group), flush and `os._exit(0)`:
       the interpreter's shutdown would race that thread (see the module docstring). Then this call does not return.
    """
    if _worker.in_launched_rank:
        raise RuntimeError("distlab.finish() ends a script under torchrun; a function run by distlab.launch just "
                           "returns (launch ends its ranks and their group)")
    if not dist.is_initialized():
        raise RuntimeError("distlab.finish: no process group to leave (call distlab.init_distributed() first)")
    if dist.get_backend() == "nccl":
        dist.barrier(device_ids=[torch.cuda.current_device()])
        torch.cuda.synchronize()
    else:
        dist.barrier()
    gc.collect()  # a DDP model in a reference cycle holds the group until collected
    dist.destroy_process_group()
    gc.collect()
    if gloo_threads() != 0:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
