"""Rank-side procedures of exercise set 08: run in the sandbox, in the namespace of the student's notebook (they call
`rendezvous` and `run_preemptible` by name), in the sandbox's own scratch folders (under its /tmp). They hold no
expected values: what they return (names, ranks, error messages, the steps each process started, the bytes of a
checkpoint file) is judged by autograde/sets/08_orchestration/checks.py, in the grader, which also imports
`chain_step` from here to compute the states a training must have saved.

The processes are real: `distlab.launch` forks them; a rendezvous's processes meet on a `torch.distributed.FileStore`
in a scratch folder (no port to find free, nothing on the loopback: every process of the sandbox shares its /tmp);
a preempted training gets a real SIGTERM from this process and, past its grace period, a real SIGKILL.
"""
import os
import signal
import tempfile
import threading
import time
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist

import distlab

POLL_S = 0.002  # how often a gate or a marker file is looked at
GATE_S = 15.0  # the longest a process waits for its turn, or a training for its signal (then it goes on)
STORE_TIMEOUT_S = 15.0  # a store's get/wait on a key that never comes fails after this long, not torch's 5 minutes


def rank_scratch(name):
    """A new empty folder in the sandbox's /tmp; its path."""
    return tempfile.mkdtemp(prefix=f"grader-{name}-")


def wait_for(path, seconds=GATE_S, stop=None):
    """Wait until a file exists at `path` (at most `seconds`, or until the event `stop` is set); whether it does."""
    end = time.monotonic() + seconds
    while not os.path.exists(path):
        if time.monotonic() > end or (stop is not None and stop.is_set()):
            return False
        time.sleep(POLL_S)
    return True


def touch(path, text=""):
    """Create the file `path` with `text`, atomically (readers see it whole or not at all)."""
    with open(path + ".part", "w") as f:
        f.write(text)
    os.replace(path + ".part", path)


# --- Part 1: rendezvous ----------------------------------------------------------------------------------------------


def join_in_turn(gate_dir, store_path, names, world_size, timeout_s):
    """On rank `dist.get_rank()` of a launch: the process that arrives `rank`-th. It waits until the one before it has
    called rendezvous (its gate file), opens the store, opens the next one's gate, and calls
    rendezvous(store, its name, world_size, timeout_s). Returns what it saw: its name, the result or the error, when it
    started and returned (time.monotonic: one clock for every process of the machine)."""
    position = dist.get_rank()
    name = names[position]
    if position > 0 and not wait_for(os.path.join(gate_dir, f"go-{position}")):
        return {"name": name, "gate": "the previous process never called rendezvous"}
    store = dist.FileStore(store_path, -1)  # -1: no process deletes the file when it is done with it
    store.set_timeout(timedelta(seconds=STORE_TIMEOUT_S))
    touch(os.path.join(gate_dir, f"go-{position + 1}"))
    started = time.monotonic()
    try:
        value = rendezvous(store, name, world_size, timeout_s)  # noqa: F821 - the student's definition
    except Exception as error:  # noqa: BLE001 - whatever it raised is judged in the grader
        return {"name": name, "started": started, "returned": time.monotonic(),
                "error": [cls.__name__ for cls in type(error).__mro__], "message": str(error)}
    return {"name": name, "started": started, "returned": time.monotonic(), "value": plain(value)}


def plain(value):
    """`value` as plain Python data (tuples and lists alike as lists, numpy's numbers as Python's) for the grader."""
    if isinstance(value, (tuple, list)):
        return [plain(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (int, float, str, bool, type(None))):
        return value
    return f"<a {type(value).__name__}>"


def rank_rendezvous(names, world_size, timeout_s, launch_timeout_s):
    """Launch one process per name, arriving in the order of `names` (each waits for the previous one's call), on a
    fresh FileStore; each calls rendezvous(store, name, world_size, timeout_s). What each saw, in arrival order."""
    folder = rank_scratch("rendezvous")
    try:
        return distlab.launch(join_in_turn, len(names), args=(folder, os.path.join(folder, "store"), list(names),
                                                               world_size, timeout_s),
                              timeout=launch_timeout_s, collective_timeout=5, backend="gloo", output="hide")
    except distlab.LaunchError as error:
        return {"launch": str(error).splitlines()[0]}


def rank_call_rendezvous(name, world_size, timeout_s):
    """rendezvous(a fresh FileStore, name, world_size, timeout_s) in this process: its result, or its error's class
    names and message (for arguments it must refuse)."""
    store = dist.FileStore(os.path.join(rank_scratch("arguments"), "store"), -1)
    store.set_timeout(timedelta(seconds=STORE_TIMEOUT_S))
    try:
        return {"value": plain(rendezvous(store, name, world_size, timeout_s))}  # noqa: F821
    except Exception as error:  # noqa: BLE001
        return {"error": [cls.__name__ for cls in type(error).__mro__], "message": str(error)}


# --- Part 2: preemption --------------------------------------------------------------------------------------------


def chain_step(x, step):
    """The grader's training step on the state's tensor: x' = (48271 x + step + 1) mod (2^31 - 1) (a Lehmer
    generator's step, in int64 without overflow). The grader computes the same chain to know the state of each step."""
    return (x * 48271 + step + 1) % 2147483647


class StallWhenPickled:
    """A value whose pickling (inside torch.save) marks that a save began, then stalls until the process is killed:
    a save still running when the grace period ends."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        touch(self.marker)
        time.sleep(GATE_S)
        return (str, ("a save that was never killed",))


def train_in_rank(control, path, spec):
    """On the launched rank: run_preemptible(path, the initial state, the grader's train_step, ...) and record, in
    the folder `control`, its pid, each step it starts and when it returned. `spec`: total_steps, save_every,
    x0 (the initial tensor), term_at (the step during which SIGTERM comes, or None), stall (whether the state made by
    that step stalls when saved), resume_state (a checkpoint written at `path` first, or None)."""
    touch(os.path.join(control, "pid"), str(os.getpid()))
    if spec["resume_state"] is not None:
        torch.save(spec["resume_state"], path)
    started = open(os.path.join(control, "started.txt"), "a", buffering=1)

    def train_step(state):
        step = int(state["step"])
        started.write(f"{step}\n")
        if step == spec["term_at"]:  # the controller sends SIGTERM now; this step ends only once it was sent
            touch(os.path.join(control, "at"))
            wait_for(os.path.join(control, "sent"))
        new = {"step": step + 1, "x": chain_step(state["x"], step)}
        if spec["stall"] and step + 1 > spec["term_at"]:
            new["stall"] = StallWhenPickled(os.path.join(control, "saving"))
        return new

    before = signal.getsignal(signal.SIGTERM)
    initial = {"step": 0, "x": spec["x0"].clone()}
    value = run_preemptible(path, initial, train_step, spec["total_steps"], spec["save_every"])  # noqa: F821
    touch(os.path.join(control, "returned"), str(time.monotonic()))
    return {"value": plain(value), "handler_restored": signal.getsignal(signal.SIGTERM) is before}


def controller(control, grace_s, seen, ended):
    """The scheduler: once the training is inside the step `term_at`, SIGTERM it; if it has not returned `grace_s`
    later, SIGKILL it. Records in `seen` when and what it sent. `ended`: set when the launch is over."""
    if not wait_for(os.path.join(control, "at"), stop=ended):
        seen["sigterm"] = "the training never reached the step at which SIGTERM comes"
        return
    pid = int(open(os.path.join(control, "pid")).read())
    os.kill(pid, signal.SIGTERM)
    sent = time.monotonic()
    seen["sigterm"] = "sent"
    touch(os.path.join(control, "sent"))
    returned = os.path.join(control, "returned")
    while not os.path.exists(returned) and time.monotonic() < sent + grace_s:
        time.sleep(POLL_S)
    if os.path.exists(returned):
        seen["returned_after_s"] = float(open(returned).read()) - sent
    else:
        seen["sigkill"] = True
        seen["saving"] = os.path.exists(os.path.join(control, "saving"))
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:  # it had died already (SIGTERM's default action)
            seen["sigkill"] = "already dead"


def read_bytes(path):
    """The bytes of the file at `path`, as a uint8 tensor, or None if there is none."""
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        return torch.from_numpy(np.frombuffer(bytearray(f.read()), dtype=np.uint8))


def rank_preempt(spec, grace_s, launch_timeout_s):
    """Run a training under run_preemptible in a launched process, this process being its scheduler (SIGTERM during
    step `spec["term_at"]`, SIGKILL `grace_s` later if it has not returned). What happened: the launch's result or how
    it ended, what the scheduler sent, the steps started, the checkpoint's bytes, the files left beside it."""
    folder = rank_scratch("preempt")
    control, run = os.path.join(folder, "control"), os.path.join(folder, "run")
    os.mkdir(control)
    os.mkdir(run)
    path = os.path.join(run, "checkpoint.pt")
    seen, ended = {}, threading.Event()
    scheduler = None
    if spec["term_at"] is not None:
        scheduler = threading.Thread(target=controller, args=(control, grace_s, seen, ended), daemon=True)
        scheduler.start()
    try:
        (seen["result"],) = distlab.launch(train_in_rank, 1, args=(control, path, spec), timeout=launch_timeout_s,
                                           collective_timeout=5, backend="gloo", output="hide")
    except distlab.RankCrashed as crash:
        seen["crashed"] = crash.signal.name if crash.signal else f"exit code {crash.exitcode}"
    except distlab.LaunchError as error:
        seen["failed"] = str(error).splitlines()[0]
    ended.set()
    if scheduler is not None:
        scheduler.join(GATE_S)
    started_file = os.path.join(control, "started.txt")
    seen["started"] = [int(line) for line in open(started_file).read().split()] if os.path.exists(started_file) else []
    seen["file"] = read_bytes(path)
    seen["listing"] = sorted(os.listdir(run))
    return seen
