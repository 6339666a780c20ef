"""Section 3: a training process preempted as a scheduler does it. SIGTERM; the handler sets a flag, the loop
finishes its step, saves atomically and exits REQUEUE_EXIT; SIGKILL if the grace period runs out first."""
from __future__ import annotations

import io
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch

from ..errors import LaunchError
from ..launching.deadline import Deadline
from ._workers import Workers, kill

# 143, "ended by SIGTERM": Kubeflow's `restartPolicy: ExitCode` restarts on >= 128 (kubeflow/training-operator,
# pkg/util/train/train_util.go, IsRetryableExitCode), and fails the job on 1-127
REQUEUE_EXIT = 128 + signal.SIGTERM


def save_atomically(state: dict, path: Path, extra_s: float = 0.0) -> None:
    """torch.save into a temporary file beside `path`, fsync, rename over `path`, fsync the folder (lesson 3: a
    kill at any moment leaves the old file or the new one, never half of one). `extra_s`: a pause halfway through
    the bytes, as a large checkpoint's writing takes (the kill may come then)."""
    buffer = io.BytesIO()
    torch.save(state, buffer)
    data = buffer.getbuffer()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data[:len(data) // 2])
        f.flush()
        time.sleep(extra_s)
        f.write(data[len(data) // 2:])
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def load_checkpoint(folder) -> dict | None:
    """The checkpoint in `folder` ({"step": the next step to run, "model", "optimizer"}), or None."""
    path = Path(folder) / "checkpoint.pt"
    return torch.load(path, weights_only=True) if path.exists() else None


def _reporting_errors(report, target, *args) -> None:
    """`target(report, *args)`; an exception is reported first, so that the parent raises it rather than returning
    a run that never was."""
    try:
        target(report, *args)
    except Exception as exc:
        report.send({"event": "error", "error": f"{type(exc).__name__}: {exc}"})
        raise


def train_until_preempted(report, folder: str, steps: int, every: int, step_s: float, save_s: float) -> None:
    """A training loop, run in a process of its own: it resumes from `folder`'s checkpoint, checkpoints every `every`
    steps, and on SIGTERM finishes its step, saves atomically and exits with REQUEUE_EXIT. `report` (a pipe) gets an
    event per step and per save. The handler only sets a flag: the signal may arrive in the middle of the optimizer's
    update, and the loop looks at the flag between steps."""
    asked_to_stop = []
    signal.signal(signal.SIGTERM, lambda signum, frame: asked_to_stop.append(time.monotonic()))
    torch.manual_seed(0)
    model = torch.nn.Linear(16, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    state = load_checkpoint(folder)
    start = 0 if state is None else state["step"]
    if state is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
    report.send({"event": "started", "step": start})
    path = Path(folder) / "checkpoint.pt"
    for step in range(start, steps):
        x = torch.randn(32, 16, generator=torch.Generator().manual_seed(step))
        loss = (model(x) - x.sum(dim=1, keepdim=True)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        time.sleep(step_s)  # the rest of a real step's compute
        report.send({"event": "step", "step": step, "loss": loss.item()})
        if asked_to_stop or (step + 1) % every == 0:
            began = time.monotonic()
            save_atomically({"step": step + 1, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
                            path, extra_s=save_s if asked_to_stop else 0.0)
            report.send({"event": "saved", "step": step + 1, "seconds": time.monotonic() - began})
        if asked_to_stop:
            report.send({"event": "exiting", "code": REQUEUE_EXIT})
            os._exit(REQUEUE_EXIT)
    report.send({"event": "finished", "step": steps})


@dataclass
class Preemption:
    """What a preemption did: the steps run, the signals, the checkpoint left on disk."""
    steps_done: int  # steps finished before the process ended
    exit_code: int  # REQUEUE_EXIT when the handler saved in time; -9 when the grace period ran out (SIGKILL)
    seconds_to_exit: float  # from SIGTERM to the process's end
    killed: bool  # the grace period ran out: SIGKILL
    checkpoint_step: int | None  # the step the checkpoint on disk resumes at
    save_seconds: float | None  # how long the handler's save took (None: it did not finish)
    events: list[dict] = field(repr=False, default_factory=list)


def preempt(folder, grace_s: float, sigterm_after_step: int, steps: int = 40, every: int = 4, step_s: float = 0.02,
            save_s: float = 0.0, timeout: float = 30.0) -> Preemption:
    """Run `train_until_preempted` in a process, as a scheduler would: SIGTERM once step `sigterm_after_step` is
    done, SIGKILL `grace_s` later if it is still alive (SLURM's KillWait, Kubernetes' terminationGracePeriodSeconds).
    `save_s`: the extra seconds the handler's save takes."""
    deadline = Deadline.after(timeout)
    Path(folder).mkdir(parents=True, exist_ok=True)
    with Workers(deadline) as workers:
        workers.start(_reporting_errors, train_until_preempted, str(folder), steps, every, step_s, save_s)
        events = workers.receive(0, until=lambda e: e["event"] == "error" or (e["event"] == "step"
                                                                              and e["step"] >= sigterm_after_step))
        if not events or events[-1]["event"] != "step":
            raise LaunchError(f"preempt: the training process ended before step {sigterm_after_step}: "
                              f"{events[-1] if events else 'nothing reported'}", [])
        proc = workers.procs[0]
        sent = time.monotonic()
        kill(proc.pid, signal.SIGTERM)
        proc.join(max(0.0, min(grace_s, deadline.left())))
        killed = proc.exitcode is None
        if killed:
            kill(proc.pid, signal.SIGKILL)
            proc.join(5.0)
        ended = time.monotonic()
        workers.deadline = Deadline.after(1.0)  # what was still in the pipe
        events += workers.receive(0)
    state = load_checkpoint(folder)
    saved_in_handler = any(e["event"] == "exiting" for e in events)
    last_save = next((e["seconds"] for e in reversed(events) if e["event"] == "saved"), None)
    return Preemption(steps_done=1 + max(e["step"] for e in events if e["event"] == "step"), exit_code=proc.exitcode,
                      seconds_to_exit=ended - sent, killed=killed,
                      checkpoint_step=None if state is None else state["step"],
                      save_seconds=last_save if saved_in_handler else None, events=events)
