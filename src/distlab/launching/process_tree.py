"""A child process and everything it started, ended together: the one way distlab, the grader, the benchmarks and the
tests stop a command that ran past its deadline (or finished, leaving something behind).

    proc = subprocess.Popen(command, start_new_session=True)   # its own process group
    ...
    kill_tree(proc, grace_s=3)    # SIGTERM, up to 3 s to exit, then SIGKILL: the group and every descendant

A process group is not enough: torchrun's agent starts each rank in a session of its own (so that it can signal it
alone), so `os.killpg` of the agent's group leaves the ranks running once the agent is SIGKILLed. The descendants are
therefore listed (psutil, by parent links) before anything is killed, and each is killed by pid as well; one that has
already been reparented (its parent died earlier) is not found that way: callers that start such programs in a
folder of their own also kill what still runs there (`kill_processes_in`).
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import psutil

from .deadline import Deadline

REAP_S = 10.0  # after SIGKILL: a process that is still there is stuck in the kernel


def kill_tree(proc: subprocess.Popen, grace_s: float = 0.0, descendants_s: float = REAP_S) -> None:
    """End `proc` (started with `start_new_session=True`), its process group and every descendant; reap `proc`.

    grace_s > 0: SIGTERM first, and SIGKILL whatever is still alive `grace_s` seconds later. Then waits up to REAP_S
    for `proc` and up to `descendants_s` for its descendants to be gone (a process stuck in the kernel is left to it,
    rather than hang the caller). descendants_s=0: do not wait for them (the grader's sandbox: they are in a PID
    namespace, which ends with its first process, and a torch process takes ~1 s to be torn down)."""
    try:
        descendants = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        descendants = []
    if grace_s > 0 and proc.poll() is None:
        _signal_all(proc, descendants, signal.SIGTERM)
        deadline = Deadline.after(grace_s)
        while proc.poll() is None and not deadline.passed():
            time.sleep(0.05)
    _signal_all(proc, descendants, signal.SIGKILL)
    try:
        proc.wait(timeout=REAP_S)
    except subprocess.TimeoutExpired:
        pass
    if descendants_s > 0:
        psutil.wait_procs(descendants, timeout=descendants_s)


def _signal_all(proc: subprocess.Popen, descendants: list, signum: int) -> None:
    try:
        os.killpg(proc.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass
    for child in descendants:
        try:
            child.send_signal(signum)
        except psutil.Error:
            pass


def kill_processes_in(folder: Path) -> None:
    """SIGKILL every process whose working directory is `folder` or below it, until none is left (or fail)."""
    folder = Path(folder)
    for _ in range(50):
        left = []
        for p in psutil.process_iter():
            try:
                if p.pid != os.getpid() and Path(p.cwd()).is_relative_to(folder):
                    p.kill()
                    left.append(p)
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                pass
        if not left:
            return
        psutil.wait_procs(left, timeout=1)
    raise AssertionError(f"processes in {folder} survived SIGKILL")
