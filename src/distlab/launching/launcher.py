"""Run a function on N ranks of a real `torch.distributed` process group, from a notebook cell.

    import torch, torch.distributed as dist, distlab

    def hello():
        t = torch.tensor([dist.get_rank()])
        dist.all_reduce(t)
        print("sum of ranks:", t.item())
        return t.item()

    distlab.launch(hello, world_size=4)      # -> [6, 6, 6, 6], and each rank's print prefixed "[rank k]"

Why not `torch.multiprocessing.spawn`: it cannot run a function defined in a notebook (`Can't get attribute ... on
<module '__main__'>`), it re-imports torch in every rank (seconds), and a failing or hung rank can leave the cell
hanging with a secondary error. Here the function travels by value (cloudpickle), ranks are forked from a forkserver
that already imported torch, and every launch has a deadline after which no rank is left alive.

The lifecycle of a launch, and its time limits (all in seconds, all named here or in `_worker`):

1. Start: the notebook forks `world_size` ranks from the forkserver (the first launch waits for it to import torch,
   outside every deadline below, up to `forkserver.FORKSERVER_START_S`); each reports "arrived", joins the group
   through a `FileStore` in the launch's own temporary folder, and reports "joined". A rank that has not joined
   within `startup_timeout` ends the launch with `StartupTimeout` ("rank 3 did not join within 30 s").
2. Run: `fn` runs; one collective, or a gloo `send`/`recv`, may wait `collective_timeout` for its peers before it
   raises on that rank (also in groups made with `dist.new_group`). After a first failure the notebook listens
   `_GRACE_S` longer for others, to name the rank that failed first; when it timed out waiting for a peer, the
   notebook asks the ranks still running where they are and names why the peer never came (`_failures`, `_explain`).
3. End: every rank waits, sockets open, until the notebook closes the lifeline; then all exit. `timeout`, the
   wall-clock deadline of the whole launch, kills whatever is left; a rank whose notebook is gone exits by itself
   `_worker.ORPHAN_MARGIN_S` after the deadline.

Why a `FileStore`, not a `TCPStore`: ranks of one launch share a machine and a folder, and a `TCPStore` client
sometimes stalled ~5 s while connecting (benchmarks/bench_launch.py: 13 of 400 such launches failed on a 5 s limit,
0 of 400 of this launcher's). The notebook waits on its pipes at most `_POLL_S` at a time: a Ctrl-C delivered to
another thread than the main one still becomes a `KeyboardInterrupt`. Multi-node runs use `distlab.torchrun`.
"""
from __future__ import annotations

import os
import sys
import time

import torch

from ..devices import pick_backend
from ..errors import LaunchError
from . import _pickle
from ._failures import FailureReports
from ._ranks import Ranks
from ._worker import LaunchOptions
from .deadline import Deadline
from .forkserver import POLL_S as _POLL_S

_GRACE_S = 0.2  # after a first failure, how long to listen for others (to name the one that came first)
_STARTUP_S = 30.0  # default `startup_timeout` (capped by `timeout`)
_COLLECTIVE_S = 30.0  # default `collective_timeout` (capped by half of `timeout`)


def launch(fn, world_size: int = 4, args: tuple = (), kwargs: dict | None = None, *, timeout: float = 60.0,
           collective_timeout: float | None = None, startup_timeout: float | None = None, backend: str | None = None,
           threads: int = 1, output: str = "by_rank") -> list:
    """Run `fn(*args, **kwargs)` on `world_size` ranks and return the per-rank results in rank order.

    Each rank is a fresh process with the default process group already initialised (use `dist.get_rank()`);
    the group is destroyed after `fn` returns. Tensors in the results come back on the CPU.

    timeout: wall-clock deadline (s) for the whole launch; after it every rank is killed and `LaunchTimeout` names
        the ranks that did not finish (their Python stacks are printed first, to show where they were stuck).
    collective_timeout: how long (s) one collective may wait for its peers before it raises on that rank
        (default: half of `timeout`, at most 30 s). It bounds collectives, not the start-up.
    startup_timeout: how long (s) every rank has to start and join the process group (default: `timeout`, at most
        30 s); past it, `StartupTimeout` names the ranks that had not joined.
    backend: "gloo" or "nccl"; by default NCCL with one GPU per rank when enough GPUs exist, else gloo.
    threads: intra-op threads per rank (1: ranks share the cores without oversubscribing them).
    output: "by_rank" prints each rank's output after the run, rank 0 first (deterministic: what nbval needs);
        "live" prints lines as they come; "hide" drops them. Lines are prefixed "[rank k]".

    Raises `RankFailed` (the rank that raised first: one line saying what happened, e.g. a deadlock, then the
    learner's frames of its traceback), `RankCrashed` (a rank killed by a signal or that exited), `StartupTimeout`,
    `LaunchTimeout`, or `KeyboardInterrupt` when the cell is interrupted ("stopped 4 ranks; they were all in ...");
    all ranks are gone by then.
    """
    _check_arguments(fn, world_size, timeout, collective_timeout, startup_timeout, threads, output)
    backend = _check_backend(backend, world_size)
    try:
        payload = _pickle.dumps((fn, tuple(args), dict(kwargs or {})))
    except Exception as exc:
        raise TypeError(f"launch: cannot send `fn` or its arguments to the ranks (they must be picklable): "
                        f"{type(exc).__name__}: {exc}") from exc
    collective_timeout = collective_timeout or min(_COLLECTIVE_S, timeout / 2)
    startup_timeout = min(startup_timeout or _STARTUP_S, timeout)
    ranks = Ranks(world_size, output)
    failures = FailureReports(ranks, collective_timeout)
    options = LaunchOptions(store_path=os.path.join(ranks.tmp_dir, "store"), stack_dir=ranks.tmp_dir, backend=backend,
                            threads=threads, collective_timeout_s=collective_timeout,
                            startup_timeout_s=startup_timeout, deadline_s=timeout, cwd=os.getcwd(),
                            sys_path=tuple(sys.path))
    try:
        ranks.start(payload, options)  # waits for a cold forkserver (importing torch): not part of the deadlines
        start = time.monotonic()
        deadline, startup = Deadline(start + timeout, timeout), Deadline(start + startup_timeout, startup_timeout)
        return _wait(ranks, failures, deadline, startup)
    except KeyboardInterrupt:
        raise failures.interruption() from None  # "stopped 4 ranks; they were all in ...", not frames of selectors.py
    except LaunchError as err:
        raise err.with_traceback(None) from None  # the learner's frames are in the message; ours are noise
    finally:
        _stop(ranks)


def _wait(ranks: Ranks, failures: FailureReports, deadline: Deadline, startup: Deadline) -> list:
    """Every rank's result in rank order, or the launch's error once a failure's grace window or a deadline passed."""
    first_failure_at = None
    while len(ranks.results) < ranks.world_size:
        now = time.monotonic()
        if first_failure_at is not None and now >= first_failure_at + _GRACE_S:
            failures.raise_failure()
        if now >= deadline.at:
            failures.raise_timeout(deadline.seconds)
        if first_failure_at is None and len(ranks.joined) < ranks.world_size and now >= startup.at:
            failures.raise_startup_timeout(startup.seconds)
        limit = min(deadline.at, first_failure_at + _GRACE_S if first_failure_at else deadline.at) - now
        if len(ranks.joined) < ranks.world_size:
            limit = min(limit, startup.at - now)
        ranks.poll(min(max(limit, 0.0), _POLL_S))
        if (ranks.failures or ranks.crashes) and first_failure_at is None:
            first_failure_at = time.monotonic()
    ranks.output.flush()
    return [ranks.results[rank] for rank in range(ranks.world_size)]


def _stop(ranks: Ranks) -> None:
    """Stop every rank, even when Ctrl-C is pressed again meanwhile: that interruption is raised once they are gone."""
    again = None
    while True:
        try:
            ranks.stop()
            break
        except KeyboardInterrupt as exc:
            again = exc
    if again is not None:
        raise again


def _check_arguments(fn, world_size, timeout, collective_timeout, startup_timeout, threads, output) -> None:
    if not callable(fn):
        raise TypeError(f"launch: `fn` must be callable, got {type(fn).__name__}")
    if not isinstance(world_size, int) or isinstance(world_size, bool) or world_size < 1:
        raise ValueError(f"launch: `world_size` must be a positive int, got {world_size!r}")
    if not timeout > 0:
        raise ValueError(f"launch: `timeout` must be > 0 seconds, got {timeout!r}")
    for name, value in (("collective_timeout", collective_timeout), ("startup_timeout", startup_timeout)):
        if value is not None and not value > 0:
            raise ValueError(f"launch: `{name}` must be > 0 seconds, got {value!r}")
    if not isinstance(threads, int) or threads < 1:
        raise ValueError(f"launch: `threads` must be a positive int, got {threads!r}")
    if output not in ("by_rank", "live", "hide"):
        raise ValueError(f"launch: `output` must be 'by_rank', 'live' or 'hide', got {output!r}")


def _check_backend(backend: str | None, world_size: int) -> str:
    if backend is None:
        return pick_backend(world_size)  # every rank is on this machine: its local world size
    if backend not in ("gloo", "nccl"):
        raise ValueError(f"launch: `backend` must be 'gloo' or 'nccl', got {backend!r}")
    if backend == "nccl" and torch.cuda.device_count() < world_size:
        raise ValueError(f"launch: backend='nccl' needs one GPU per rank: world_size={world_size}, "
                         f"GPUs found: {torch.cuda.device_count()}")
    return backend
