"""Orchestration by hand: ranks that find each other on a store, a training process that is preempted, a flight
recorder of collectives. What lesson 8 runs; torchrun, SLURM and Kubernetes do the same at scale.

    run = rendezvous_by_hand(world_size=4)                 # a TCPStore here, 4 processes given torchrun's variables
    run.keys                                               # what the group wrote to the store
    rendezvous_by_hand(4, absent={3}, timeout=3)           # RendezvousTimeout: "rank 3 of 4 did not arrive ..."
    preempt(grace_s=5, sigterm_after_step=6)               # SIGTERM, then SIGKILL after the grace period
    recorder = FlightRecorder(folder)                      # in a rank: recorder.all_reduce(t) records each call

Every process started here is forked from distlab's forkserver (torch already imported: a fork, not a 3 s import;
a function defined in a notebook cannot be started that way, so the workers live here), has a deadline, and is
SIGKILLed and reaped when it passes or when the call returns. Ports are picked by the OS (port 0), never guessed.

    pytest tests/test_orchestration.py
"""
from __future__ import annotations

import datetime
import io
import json
import multiprocessing.connection
import os
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.distributed as dist

from .errors import LaunchError, _ranks
from .launching.deadline import Deadline
from .launching.forkserver import RankProcess, get_context

# 143, "ended by SIGTERM": Kubeflow's `restartPolicy: ExitCode` restarts on >= 128 (kubeflow/training-operator,
# pkg/util/train/train_util.go, IsRetryableExitCode), and fails the job on 1-127
REQUEUE_EXIT = 128 + signal.SIGTERM
ARRIVED = "distlab/arrived/{rank}"  # the key each rank sets on the store as soon as it is connected
_POLL_S = 0.02


class RendezvousTimeout(LaunchError, TimeoutError):
    """Not every rank arrived at the store before the deadline; `missing` names those that did not."""

    def __init__(self, seconds: float, world_size: int, missing: list[int], arrived: list[int]):
        message = (f"rendezvous: rank(s) {_ranks(missing)} of {world_size} did not arrive within {seconds:g} s "
                   f"(rank(s) {_ranks(arrived) if arrived else 'none'} did, and waited for them); every process "
                   f"was killed")
        super().__init__(message, missing)
        self.seconds, self.missing, self.arrived = seconds, missing, arrived


class _Workers:
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
            if not conn.poll(min(_POLL_S * 5, max(self.deadline.left(), 0))):
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
                _kill(proc.pid, signal.SIGKILL)
        for proc in self.procs:
            proc.join(5.0)
        for conn in self.conns:
            conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def _kill(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


# -- 1. Rendezvous -------------------------------------------------------------------------------------------------

def torchrun_env(rank: int, world_size: int, port: int, local_world_size: int | None = None) -> dict[str, str]:
    """The variables torchrun's agent gives each rank it starts (a subset: also GROUP_RANK, ROLE_*, TORCHELASTIC_*).

    TORCHELASTIC_USE_AGENT_STORE=True: `init_process_group("env://")` then connects to the store the agent hosts
    (here: ours) instead of rank 0 hosting one (torch/distributed/rendezvous.py, `_create_c10d_store`)."""
    local = local_world_size or world_size
    return {"RANK": str(rank), "LOCAL_RANK": str(rank % local), "WORLD_SIZE": str(world_size),
            "LOCAL_WORLD_SIZE": str(local), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
            "TORCHELASTIC_USE_AGENT_STORE": "True"}


def _rendezvous_rank(report, env: dict, timeout_s: float) -> None:
    os.environ.update(env)
    rank = int(env["RANK"])
    store = dist.TCPStore(env["MASTER_ADDR"], int(env["MASTER_PORT"]), is_master=False,
                          timeout=datetime.timedelta(seconds=timeout_s))
    store.set(ARRIVED.format(rank=rank), str(os.getpid()))
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout_s))  # env://: what a script calls
    total = torch.tensor([rank])
    dist.all_reduce(total)
    report.send({"rank": rank, "env": {k: v for k, v in env.items() if k != "TORCHELASTIC_USE_AGENT_STORE"},
                 "sum_of_ranks": int(total.item()), "world_size": dist.get_world_size()})
    dist.destroy_process_group()


@dataclass
class Rendezvous:
    """A group formed by hand: the store's port, each rank's report (its variables, an all-reduce), the store's keys."""
    port: int
    reports: list[dict]
    keys: list[str]


def rendezvous_by_hand(world_size: int = 4, absent=(), timeout: float = 10.0) -> Rendezvous:
    """Host a TCPStore (as torchrun's agent does), start `world_size` ranks (minus `absent`) with torchrun's
    variables; each sets its ARRIVED key, joins the gloo group by env:// and all-reduces its rank.

    Raises `RendezvousTimeout` naming the ranks that had not arrived after `timeout` s; every process is gone then."""
    deadline = Deadline.after(timeout)
    store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False,
                          timeout=datetime.timedelta(seconds=timeout))  # port 0: the OS picks a free one
    with _Workers(deadline) as workers:
        for rank in range(world_size):
            if rank not in absent:
                workers.start(_rendezvous_rank, torchrun_env(rank, world_size, store.port), timeout)
        arrived = _wait_for_arrivals(store, world_size, deadline)
        if len(arrived) < world_size:
            missing = [r for r in range(world_size) if r not in arrived]
            raise RendezvousTimeout(timeout, world_size, missing, sorted(arrived))
        reports = [events[0] for w in range(world_size) if (events := workers.receive(w, until=bool))]
        if len(reports) < world_size:
            raise LaunchError(f"rendezvous: only {len(reports)} of {world_size} ranks reported within {timeout:g} s",
                              [])
        return Rendezvous(store.port, sorted(reports, key=lambda r: r["rank"]), sorted(store.list_keys()))


def _wait_for_arrivals(store, world_size: int, deadline: Deadline) -> set[int]:
    arrived = set()
    while len(arrived) < world_size and not deadline.passed():
        arrived |= {r for r in range(world_size) if r not in arrived and store.check([ARRIVED.format(rank=r)])}
        time.sleep(_POLL_S)
    return arrived


# -- 3. Preemption -------------------------------------------------------------------------------------------------

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
    with _Workers(deadline) as workers:
        workers.start(_reporting_errors, train_until_preempted, str(folder), steps, every, step_s, save_s)
        events = workers.receive(0, until=lambda e: e["event"] == "error" or (e["event"] == "step"
                                                                              and e["step"] >= sigterm_after_step))
        if not events or events[-1]["event"] != "step":
            raise LaunchError(f"preempt: the training process ended before step {sigterm_after_step}: "
                              f"{events[-1] if events else 'nothing reported'}", [])
        proc = workers.procs[0]
        sent = time.monotonic()
        _kill(proc.pid, signal.SIGTERM)
        proc.join(max(0.0, min(grace_s, deadline.left())))
        killed = proc.exitcode is None
        if killed:
            _kill(proc.pid, signal.SIGKILL)
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


# -- 4. Hangs: a flight recorder -----------------------------------------------------------------------------------

class FlightRecorder:
    """Each rank's collectives, numbered, as started and completed: `recorder.all_reduce(t)` instead of
    `dist.all_reduce(t)`. The record is a file per rank, appended before and after each call, so it survives a rank
    that is frozen or killed (torch's flight recorder keeps a ring buffer in memory and dumps it on a timeout:
    TORCH_NCCL_TRACE_BUFFER_SIZE, TORCH_NCCL_DUMP_ON_TIMEOUT; a frozen rank dumps nothing there)."""

    def __init__(self, folder):
        self.path = Path(folder) / f"rank{dist.get_rank()}.jsonl"
        self.seq = 0

    def _log(self, **entry) -> None:
        with open(self.path, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def all_reduce(self, tensor, **kwargs):
        self.seq += 1
        self._log(seq=self.seq, op="all_reduce", state="started")
        dist.all_reduce(tensor, **kwargs)
        self._log(seq=self.seq, op="all_reduce", state="completed")


def last_collectives(folder) -> dict[int, dict]:
    """{rank: its last recorded entry} from a FlightRecorder's folder."""
    last = {}
    for path in sorted(Path(folder).glob("rank*.jsonl")):
        lines = path.read_text().splitlines()
        if lines:
            last[int(path.stem[4:])] = json.loads(lines[-1])
    return last


def diagnose_hang(last: dict[int, dict], world_size: int) -> str:
    """One sentence from each rank's last collective: who is behind, and where the others wait.

    The rank whose last collective is furthest behind (by sequence number), or that recorded none, is the one the
    others wait for; that is what torch's flight-recorder analyser reports too (`torch.distributed.flight_recorder`,
    "fr_trace": a collective that some ranks started and others never did)."""
    ahead = max(entry["seq"] for entry in last.values())
    behind = [r for r in range(world_size) if r not in last or last[r]["seq"] < ahead]
    waiting = [r for r in range(world_size) if r in last and last[r]["seq"] == ahead and last[r]["state"] == "started"]
    phrases = []
    for r in behind:
        entry = last.get(r)
        phrases.append(f"rank {r} never started collective #{ahead}" + (
            f" (its last: {entry['op']} #{entry['seq']}, {entry['state']})" if entry else " (it recorded none)"))
    return "; ".join(phrases) + f"; rank(s) {_ranks(waiting)} wait in {last[waiting[0]]['op']} #{ahead}" \
        if waiting else "; ".join(phrases) or "every rank is at the same collective"


def new_folder(prefix: str = "distlab-lesson08-") -> Path:
    """A fresh temporary folder (the caller removes it)."""
    return Path(tempfile.mkdtemp(prefix=prefix))
