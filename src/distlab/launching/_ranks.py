"""The processes of one launch, the pipes that connect them to the notebook, and what each rank reported so far."""
from __future__ import annotations

import atexit
import multiprocessing as mp
import multiprocessing.connection
import os
import shutil
import signal
import tempfile
import weakref

import cloudpickle

from . import _worker
from .deadline import Deadline
from ._output import RankOutput
from .forkserver import RankProcess, get_context

_live_workers: "weakref.WeakSet[mp.process.BaseProcess]" = weakref.WeakSet()


class Ranks:
    """Starts the ranks, reads what they send (start-up progress, a result or an error report, output), stops them."""

    def __init__(self, world_size: int, output: str):
        self.world_size = world_size
        self.output = RankOutput(world_size, output)
        self.procs: list = []
        self.results: dict[int, object] = {}
        self.failures: list[tuple[float, int, dict]] = []  # (time, rank, report)
        self.crashes: list[tuple[int, int]] = []  # (rank, exitcode)
        self.arrived: set[int] = set()  # ranks that started and are joining the process group
        self.joined: set[int] = set()  # ranks that joined it
        self.lifeline_send = None
        self.result_conns: dict = {}  # {pipe: rank}, until the rank's result or error came through it
        self.tmp_dir = tempfile.mkdtemp(prefix="distlab-launch-")  # the FileStore, and stacks of stuck ranks

    def start(self, payload: bytes, options: _worker.LaunchOptions) -> None:
        ctx = get_context()
        lifeline_recv, self.lifeline_send = ctx.Pipe(duplex=False)
        for rank in range(self.world_size):
            result_recv, result_send = ctx.Pipe(duplex=False)
            out_recv, out_send = ctx.Pipe(duplex=False)
            err_recv, err_send = ctx.Pipe(duplex=False)
            conns = {"results": result_send, "out": out_send, "err": err_send, "lifeline": lifeline_recv}
            proc = RankProcess(target=_worker.run_rank, args=(rank, self.world_size, payload, options, conns),
                               name=f"distlab-rank-{rank}", daemon=True)
            proc.start()
            _live_workers.add(proc)
            self.procs.append(proc)
            for conn in (result_send, out_send, err_send):
                conn.close()  # the rank holds its own copy: ours would hide the rank's exit (no EOF)
            self.result_conns[result_recv] = rank
            self.output.add(rank, out_recv, err_recv)
        lifeline_recv.close()

    def unfinished(self) -> list[int]:
        """Ranks that have neither returned, nor reported an error, nor died."""
        done = set(self.results) | {r for _, r, _ in self.failures} | {r for r, _ in self.crashes}
        return [r for r in range(self.world_size) if r not in done]

    def poll(self, timeout: float) -> None:
        """Wait up to `timeout` for anything from the ranks (a report, output, an exit), and take it in."""
        ready = set(mp.connection.wait(self._waitables(), timeout=timeout))
        for conn in [c for c in self.result_conns if c in ready]:
            self._receive(conn)
        self.output.read(ready)
        for rank, proc in enumerate(self.procs):
            if proc.sentinel in ready and rank not in self.results:
                self._maybe_crashed(rank, proc)

    def collect_reports(self, seconds: float) -> None:
        """Take in the reports that come within `seconds` (e.g. of ranks that got the notebook's Ctrl-C too)."""
        end = Deadline.after(seconds)
        while self.result_conns and (left := end.left()) > 0:
            ready = mp.connection.wait(list(self.result_conns), timeout=left)
            if not ready:
                return
            for conn in ready:
                self._receive(conn)

    def signal(self, rank: int, signum) -> None:
        signal_process(self.procs[rank], signum)

    def _waitables(self) -> list:
        crashed = {rank for rank, _ in self.crashes}
        sentinels = [p.sentinel for rank, p in enumerate(self.procs)
                     if rank not in self.results and rank not in crashed]
        return list(self.result_conns) + self.output.waitables() + sentinels

    def _receive(self, conn) -> None:
        try:
            kind, rank, data = conn.recv()
        except (EOFError, OSError):
            self.result_conns.pop(conn)
            return  # died before reporting: its sentinel tells us how
        if kind in ("arrived", "joined"):  # start-up progress; the result comes later through the same pipe
            (self.arrived if kind == "arrived" else self.joined).add(rank)
            return
        self.result_conns.pop(conn)
        if kind == "ok":
            self.results[rank] = cloudpickle.loads(data)
        else:
            self.failures.append((data["time"], rank, data))

    def _maybe_crashed(self, rank: int, proc) -> None:
        proc.join(0.5)
        for conn, r in list(self.result_conns.items()):
            while r == rank and conn in self.result_conns and conn.poll():  # its reports were still in the pipe
                self._receive(conn)
        if rank not in self.results and not any(r == rank for _, r, _ in self.failures):
            self.crashes.append((rank, proc.exitcode))

    def stop(self) -> None:
        """Kill every rank still alive, collect what they printed, and close all pipes. Idempotent."""
        if self.lifeline_send is not None:
            self.lifeline_send.close()  # finished ranks are waiting for this to exit
            self.lifeline_send = None
        for rank, proc in enumerate(self.procs):
            if rank not in self.results:
                signal_process(proc, signal.SIGKILL)
        for proc in self.procs:
            proc.join(5.0)
            if proc.exitcode is None:
                signal_process(proc, signal.SIGKILL)
                proc.join(5.0)
        self.output.drain()
        self.output.flush()
        for conn in self.result_conns:
            conn.close()
        self.result_conns = {}
        shutil.rmtree(self.tmp_dir, ignore_errors=True)


def signal_process(proc, signum) -> None:
    try:
        os.kill(proc.pid, signum)
    except (ProcessLookupError, TypeError):
        pass


@atexit.register
def _kill_leftovers() -> None:
    for proc in list(_live_workers):
        if proc.exitcode is None:
            signal_process(proc, signal.SIGKILL)
