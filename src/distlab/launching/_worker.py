"""The rank side of `distlab.launch`: one of these runs in every worker process.

It is forked from a forkserver that already imported torch (so a launch costs a fork, not a 3 s import), redirects
its output to pipes the notebook reads, joins the process group, runs the learner's function and reports back.
Nothing here is called by learners directly.
"""
from __future__ import annotations

import faulthandler
import io
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from datetime import timedelta

import cloudpickle
import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

from . import _where

EXIT_ORPHANED = 70  # the notebook went away (or the deadline passed): leave, with a code nobody else uses
ORPHAN_MARGIN_S = 10.0  # a rank whose notebook is gone outlives the launch's deadline by at most this much
ORPHAN_LINGER_S = 2.0  # after the lifeline closes, a finished rank may take this long to exit by itself
STARTUP_MARGIN_S = 5.0  # the store waits this much past the notebook's start-up deadline: the notebook names the
# missing rank first (`StartupTimeout`), rather than every rank failing with a store timeout
_stack_file = None  # where faulthandler writes this rank's stacks when the notebook asks (SIGUSR1)
_reported = threading.Event()  # this rank sent its result or its error
_store = None  # kept alive here: torch holds only the C++ half of a store written in Python (`_PatientStore`)
in_launched_rank = False  # set in a rank of `distlab.launch` (distlab.finish refuses to run there)


@dataclass(frozen=True)
class LaunchOptions:
    """What every rank of one launch is told by the notebook (the same for all; sent pickled through the forkserver)."""
    store_path: str  # the FileStore the ranks join through
    stack_dir: str  # where a rank writes its stacks and where it is, when the notebook asks
    backend: str  # "gloo" or "nccl"
    threads: int  # intra-op threads per rank
    collective_timeout_s: float
    startup_timeout_s: float
    deadline_s: float  # the whole launch's `timeout`
    cwd: str  # the notebook's working directory and import path, so that the rank finds what the notebook finds
    sys_path: tuple[str, ...]


def _redirect_output(out_conn, err_conn) -> None:
    """Point fd 1 and fd 2 (Python and C++ output alike) at the notebook's pipes, line-buffered."""
    os.dup2(out_conn.fileno(), 1)
    os.dup2(err_conn.fileno(), 2)
    out_conn.close()
    err_conn.close()
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=True, write_through=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), line_buffering=True, write_through=True)


def _watch_lifeline(lifeline, seconds: float) -> None:
    """Exit as soon as the notebook closes the lifeline (done, or gone) or the deadline has long passed.

    This is why no worker ever outlives its launch: even if the kernel is killed and cannot kill us, the pipe's
    other end closes with it.
    """
    def lifeline_thread():  # its name is how _output.clean_stack_dump tells this thread from the learner's
        try:
            lifeline.poll(seconds)
        except (EOFError, OSError):
            pass
        if _reported.is_set():
            time.sleep(ORPHAN_LINGER_S)  # run_rank is exiting by itself (exit code 0): let it
        os._exit(EXIT_ORPHANED)  # a rank still running (or not yet started: Ctrl-C during the launch) leaves now

    threading.Thread(target=lifeline_thread, name="distlab-lifeline", daemon=True).start()


def _to_cpu(value):
    """Tensors come back on the CPU, so the notebook never has to initialise CUDA to read a result."""
    from torch.utils._pytree import tree_map
    return tree_map(lambda x: x.detach().cpu() if isinstance(x, torch.Tensor) else x, value)


def _error_report(rank: int, exc: BaseException, fn=None) -> dict:
    """Everything the notebook needs to show this rank's error as if it had happened in the cell."""
    tb = traceback.TracebackException.from_exception(exc, lookup_lines=False)  # lines looked up by the notebook
    while tb.stack and tb.stack[0].filename == __file__:
        tb.stack.pop(0)  # our own frames are noise to the learner
    report = {"rank": rank, "time": time.time(), "summary": f"{type(exc).__name__}: {exc}",
              "where": _where.where(_where.traceback_frames(exc.__traceback__), fn),
              "timed_out": "timed out" in str(exc).lower()}  # gloo: "Timed out waiting 5000ms for recv ..."
    try:
        report["traceback"] = cloudpickle.dumps(tb)
    except Exception:
        report["traceback_text"] = "".join(tb.format())
    try:
        report["exception"] = cloudpickle.dumps(exc)
    except Exception:
        pass
    return report


def run_rank(rank: int, world_size: int, payload: bytes, options: LaunchOptions, conns: dict) -> None:
    """Entry point of one rank (the forkserver's child). Whatever goes wrong is reported through `results`."""
    global in_launched_rank
    results, fn, in_launched_rank = conns["results"], None, True
    _where.block_requests()  # first, before any thread starts
    try:
        _redirect_output(conns.pop("out"), conns.pop("err"))
        _watch_lifeline(conns["lifeline"], options.deadline_s + ORPHAN_MARGIN_S)
        _answer_stack_requests(rank, options.stack_dir)
        os.chdir(options.cwd)
        sys.path[:] = options.sys_path
        torch.set_num_threads(options.threads)
        fn, args, kwargs = cloudpickle.loads(payload)
        _where.answer_requests(rank, options.stack_dir, fn)
        results.send(("arrived", rank, None))
        _init_process_group(rank, world_size, options)
        results.send(("joined", rank, None))
        value = _to_cpu(fn(*args, **kwargs))
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            data = cloudpickle.dumps(value)
        except Exception as exc:
            raise TypeError(f"the function's return value cannot be sent back to the notebook: {exc}") from exc
        results.send(("ok", rank, data))
        _reported.set()
    except BaseException as exc:  # SystemExit and KeyboardInterrupt too: the notebook must hear of them
        sys.stdout.flush()
        sys.stderr.flush()
        results.send(("error", rank, _error_report(rank, exc, fn)))
        _reported.set()
    finally:
        # Stay alive, sockets open, until the notebook has heard from every rank and closes the lifeline: a rank
        # that left early would make its peers fail with a misleading "Connection closed by peer". Then leave at
        # once: every peer has reported, so there is nothing to tear down in order, and `os._exit` skips Python's
        # shutdown, which could meet gloo's worker threads still releasing work (distlab/shutdown.py).
        try:
            conns["lifeline"].poll(options.deadline_s + ORPHAN_MARGIN_S)
        except BaseException:
            pass
        os._exit(0)


def _answer_stack_requests(rank: int, stack_dir: str) -> None:
    """On SIGUSR1, write every thread's Python stack to a file the notebook reads ("where is this rank stuck?")."""
    global _stack_file
    _stack_file = open(os.path.join(stack_dir, f"rank{rank}.txt"), "w")
    faulthandler.register(signal.SIGUSR1, file=_stack_file, all_threads=True)


def _init_process_group(rank: int, world_size: int, options: LaunchOptions) -> None:
    """Join through a FileStore (why: see `launcher`'s docstring), then bound collectives by `collective_timeout`.

    Start-up and collectives have separate limits: joining may take up to the start-up deadline (a loaded machine
    forks slowly), while a collective that waits for a peer fails after `collective_timeout`.
    """
    startup = timedelta(seconds=options.startup_timeout_s + STARTUP_MARGIN_S)
    collective = timedelta(seconds=options.collective_timeout_s)
    global _store
    store = _store = _PatientStore(dist.FileStore(options.store_path, world_size), startup)
    kwargs = {}
    if options.backend == "nccl":
        torch.cuda.set_device(rank)
        kwargs["device_id"] = torch.device("cuda", rank)
    # The group's timeout bounds a collective and, with gloo, a point-to-point wait (a `recv` reads it from the gloo
    # context, made here: `_set_pg_timeout` later would not reach it); joining waits on the store, at least `startup`.
    dist.init_process_group(options.backend, store=store, rank=rank, world_size=world_size, timeout=collective,
                            **kwargs)
    c10d.default_pg_timeout = collective  # groups made later by `dist.new_group` get it too (torch's default: 30 min)


class _PatientStore(dist.Store):
    """A store whose waits last at least `floor`: gloo's rendezvous waits for its peers with the group's timeout (the
    collective one, maybe 1 s), but a peer may be late to join by up to the start-up timeout."""

    def __init__(self, inner, floor: timedelta):
        super().__init__()
        self.inner, self.floor = inner, floor
        inner.set_timeout(floor)

    def wait(self, keys, timeout=None):
        self.inner.wait(keys, max(timeout or self.floor, self.floor))

    def set(self, key, value):
        self.inner.set(key, value)

    def get(self, key):
        return self.inner.get(key)

    def add(self, key, amount):
        return self.inner.add(key, amount)

    def compare_set(self, key, expected, desired):
        return self.inner.compare_set(key, expected, desired)

    def delete_key(self, key):
        return self.inner.delete_key(key)

    def num_keys(self):
        return self.inner.num_keys()

    def check(self, keys):
        return self.inner.check(keys)
