"""The processes lesson 8's demonstrations start: forked from distlab's forkserver (torch already imported), each with
a pipe back to the caller, a deadline, and SIGKILLed and reaped when the call returns."""
from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path

from ..launching.deadline import Deadline
from ..launching.forkserver import RankProcess, get_context

POLL_S = 0.02


class Workers:
    """Processes forked from the forkserver, each with a pipe back to us; `stop()` kills and reaps all of them."""

    def __init__(self, deadline: Deadline):
        self.deadline, self.procs, self.conns = deadline, [], []

    def start(self, target, *args) -> int:
        receive, send = get_context().Pipe(duplex=False)
        proc = RankProcess(target=target, args=(send, *args), daemon=True)
        proc.start()
        send.close()  # the worker holds its own end: ours would hide its exit (no EOF)
        self.procs.append(proc)
        self.conns.append(receive)
        return len(self.procs) - 1

    def receive(self, which: int, until=None) -> list[dict]:
        """Events from worker `which` until `until(event)` holds, it exits, or the deadline passes."""
        events, conn = [], self.conns[which]
        while not self.deadline.passed():
            if not conn.poll(min(POLL_S * 5, max(self.deadline.left(), 0))):
                continue
            try:
                events.append(conn.recv())
            except EOFError:
                break
            if until is not None and until(events[-1]):
                break
        return events

    def stop(self) -> None:
        for proc in self.procs:
            if proc.exitcode is None:
                kill(proc.pid, signal.SIGKILL)
        for proc in self.procs:
            proc.join(5.0)
        for conn in self.conns:
            conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def kill(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def new_folder(prefix: str = "distlab-lesson08-") -> Path:
    """A fresh temporary folder (the caller removes it)."""
    return Path(tempfile.mkdtemp(prefix=prefix))
