"""Where a rank is: the `torch.distributed` call it waits in (op, and the peer or group it waits for), and the line of
the learner's code that made that call. The notebook turns these into one sentence (see `_explain`).

A rank answers two ways: in its error report (from the frames of its exception's traceback), and, while it runs,
when the notebook sends SIGUSR2: a thread of the rank that waits for that signal (`signal.sigwait`) reads the main
thread's frames (`sys._current_frames`: they can be read while the main thread waits inside a C++ collective, which
releases the GIL) and writes them to `where<rank>.json` in the launch's folder.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import sysconfig
import threading

from ..topology import POINT_TO_POINT, global_rank

ASK = signal.SIGUSR2  # "where are you?" (SIGUSR1 asks faulthandler for the raw stacks)
_C10D_FILE = os.path.join("torch", "distributed", "distributed_c10d.py")
_DISTLAB = os.path.dirname(os.path.dirname(__file__))  # the whole package, not just this folder
_NOT_LEARNERS = tuple(os.path.realpath(p) + os.sep for p in {
    _DISTLAB, *(sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib"))})


def is_learners(filename: str) -> bool:
    """Whether a frame of this file is the learner's code: a cell, a script, a test; not distlab, torch, the stdlib
    or any installed package."""
    if filename.startswith("<"):  # "<string>", "<frozen ...>"; but a cell run by a plain IPython shell (the
        return filename.startswith("<ipython-input-")  # graders' sandbox) is named "<ipython-input-3-0f1e...>"
    return not (os.path.realpath(filename) + os.sep).startswith(_NOT_LEARNERS) and "site-packages" not in filename


def where(frames: list[tuple], fn=None) -> dict:
    """frames: (frame, line number), outermost first. Returns {"op", "peer" | "group", "file", "line", "func"}, each
    key only when known: the first public `torch.distributed` function called (what the learner called: `send`
    calls `isend` inside), and the innermost frame of the learner's code."""
    info: dict = {}
    for frame, _ in frames:
        code = frame.f_code
        if code.co_filename.endswith(_C10D_FILE) and not code.co_name.startswith("_"):
            info["op"] = code.co_name
            info.update(_peers(frame.f_locals, code.co_name))
            break
    learners = [(frame, line) for frame, line in frames if is_learners(frame.f_code.co_filename)]
    if learners:
        frame, line = learners[-1]
        info.update(file=frame.f_code.co_filename, line=line, func=frame.f_code.co_name)
    elif fn is not None:  # e.g. `launch(time.sleep, ...)`: no Python frame of the learner's at all
        info["func"] = getattr(fn, "__qualname__", None) or type(fn).__name__
    return info


def _peers(variables: dict, op: str) -> dict:
    """The global rank a point-to-point call waits for, or the global ranks of a collective's group (a `broadcast`,
    `reduce`, `gather` or `scatter` has a `src`/`dst` too, its root: it waits for the whole group all the same)."""
    import torch.distributed as dist

    group = variables.get("group")
    for name in ("src", "dst") if op in POINT_TO_POINT else ():
        if name in variables or f"group_{name}" in variables:
            peer, group_peer = variables.get(name), variables.get(f"group_{name}")
            try:
                if peer is None and group_peer is not None:
                    peer = global_rank(group, group_peer)
            except Exception:
                pass
            return {"peer": peer}
    try:
        return {"group": dist.get_process_group_ranks(group if group is not None else dist.group.WORLD)}
    except Exception:
        return {}


def traceback_frames(tb) -> list[tuple]:
    frames = []
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return frames


def block_requests() -> None:
    """Called first in a rank, before any thread starts: every thread inherits the block, so that only the thread of
    `answer_requests` takes ASK (unblocked, its default action would kill the rank)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {ASK})


def answer_requests(rank: int, folder: str, fn) -> None:
    main = threading.main_thread().ident
    path = os.path.join(folder, f"where{rank}.json")

    def serve():
        while True:
            signal.sigwait({ASK})
            frame, frames = sys._current_frames().get(main), []
            while frame is not None:
                frames.insert(0, (frame, frame.f_lineno))
                frame = frame.f_back
            with open(path + ".tmp", "w") as f:
                json.dump(where(frames, fn), f)
            os.replace(path + ".tmp", path)  # the notebook never reads half a file

    threading.Thread(target=serve, name="distlab-where", daemon=True).start()
