"""Fault injection: make a rank die the way a real failure does, at a chosen step, or a save die halfway through.

    fail = distlab.FailAt(rank=1, step=7)        # in the training loop, once per step: fail(step)
    distlab.launch(train, 2, args=(fail,))       # -> RankCrashed: "rank 1 was killed by signal SIGKILL"

    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 DISTLAB_FAIL_AT="1:7@0,0:13@1" \\
        torchrun --standalone --nproc-per-node=2 --max-restarts=2 train.py   # train.py calls faults_from_env()

(TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1: else a restarted rank may read a peer's stale address and fail to connect,
pytorch/pytorch#135712; `distlab.torchrun` sets it.)

A real failure (a GPU falling off the bus, a node rebooting, the out-of-memory killer) gives the process no chance to
clean up: no exception handler runs, no file is closed, no message is sent. SIGKILL does exactly that, so a training
loop that survives `FailAt` survives the real thing as far as the software can tell. (`how="raise"` raises instead:
a failure the program sees, for tests of error paths. `how="stop"` freezes the rank with SIGSTOP: a hang, as a node
whose GPU or network stopped answering; its peers wait in the next collective until the node is killed and replaced.)
`SlowRank(rank=2, factor=3)` makes one rank a straggler: its `work(seconds)` takes 3 times as long.

In a large cluster something fails every day: Meta's Llama 3 405B pre-training saw 466 job interruptions in a 54-day
snapshot on 16,384 GPUs, 419 of them unexpected (Dubey et al. 2024, "The Llama 3 Herd of Models", section 3.3.4).

    pytest tests/test_faults.py
"""
from __future__ import annotations

import os
import re
import signal
import sys
import time
from dataclasses import dataclass

from .topology import launched_rank

ENV_VAR = "DISTLAB_FAIL_AT"
_HOWS = ("kill", "raise", "stop")


class InjectedFailure(RuntimeError):
    """What `FailAt(..., how="raise")` raises on the chosen rank at the chosen step."""


def kill_this_process() -> None:
    """SIGKILL the calling process now: no `finally`, no `atexit`, no buffered output written after this line."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def restart_count() -> int:
    """How many times torchrun has restarted this job (TORCHELASTIC_RESTART_COUNT; 0 outside torchrun)."""
    return int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))


@dataclass(frozen=True)
class FailAt:
    """Call it once per training step, `fail(step)`: on rank `rank` at step `step` the process dies.

    how: "kill" (SIGKILL, the default: a crash), "raise" (`InjectedFailure`) or "stop" (SIGSTOP: a hang).
    attempt: fail only when torchrun's restart count equals it (0: only the first attempt), so that a job run with
        `--max-restarts` gets past the failure once it resumes; None: fail on every attempt.
    """
    rank: int
    step: int
    how: str = "kill"
    attempt: int | None = None

    def __post_init__(self):
        for name in ("rank", "step"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"FailAt: `{name}` must be an int >= 0, got {value!r}")
        if self.how not in _HOWS:
            raise ValueError(f"FailAt: `how` must be one of {_HOWS}, got {self.how!r}")
        if self.attempt is not None and (not isinstance(self.attempt, int) or self.attempt < 0):
            raise ValueError(f"FailAt: `attempt` must be None or an int >= 0, got {self.attempt!r}")

    def __call__(self, step: int, rank: int | None = None) -> None:
        rank = launched_rank() if rank is None else rank
        if rank != self.rank or step != self.step:
            return
        if self.attempt is not None and restart_count() != self.attempt:
            return
        message = f"injected failure: rank {rank} at step {step}"
        if self.how == "raise":
            raise InjectedFailure(message)
        print(f"{message} ({'SIGSTOP' if self.how == 'stop' else 'SIGKILL'})", flush=True)
        if self.how == "stop":
            os.kill(os.getpid(), signal.SIGSTOP)  # frozen until SIGCONT, or SIGKILL (a stopped process still dies)
        else:
            kill_this_process()


class FailurePlan:
    """Several `FailAt`s, called as one: `plan(step)` runs each. Empty: does nothing."""

    def __init__(self, failures=()):
        self.failures = tuple(failures)

    def __call__(self, step: int, rank: int | None = None) -> None:
        for failure in self.failures:
            failure(step, rank)

    def __len__(self) -> int:
        return len(self.failures)

    def __repr__(self) -> str:
        return f"FailurePlan({list(self.failures)!r})"


@dataclass(frozen=True)
class SlowRank:
    """A straggler: `slow.work(seconds)` takes `factor` times as long on rank `rank` as on the others.

    `work` sleeps for the time a step's computation would take, so the ranks' speeds are what the caller says, not
    what a shared, loaded CPU makes of them (a real straggler: a throttled GPU, a slow host, a noisy neighbour).
    """
    rank: int
    factor: float = 3.0

    def __post_init__(self):
        if not isinstance(self.rank, int) or isinstance(self.rank, bool) or self.rank < 0:
            raise ValueError(f"SlowRank: `rank` must be an int >= 0, got {self.rank!r}")
        if not self.factor >= 1:
            raise ValueError(f"SlowRank: `factor` must be >= 1, got {self.factor!r}")

    def work(self, seconds: float, rank: int | None = None) -> float:
        """Sleep `seconds` (times `factor` on the slow rank); returns the seconds this rank was told to take."""
        rank = launched_rank() if rank is None else rank
        seconds = seconds * self.factor if rank == self.rank else seconds
        time.sleep(seconds)
        return seconds


_SPEC = re.compile(r"(\d+):(\d+)(?::(kill|raise|stop))?(?:@(\d+))?")


def parse_failures(spec: str) -> FailurePlan:
    """"RANK:STEP[:kill|raise|stop][@ATTEMPT], ..." -> a FailurePlan. E.g. "1:7@0,0:13@1": on the first attempt rank 1
    dies at step 7, on the second (torchrun's first restart) rank 0 dies at step 13."""
    failures = []
    for item in filter(None, (part.strip() for part in spec.split(","))):
        found = _SPEC.fullmatch(item)
        if not found:
            raise ValueError(f"{ENV_VAR}: cannot read {item!r}; expected RANK:STEP[:kill|raise|stop][@ATTEMPT], "
                             f"e.g. '1:7' or '1:7@0,0:13@1'")
        rank, step, how, attempt = found.groups()
        failures.append(FailAt(int(rank), int(step), how or "kill", None if attempt is None else int(attempt)))
    return FailurePlan(failures)


def faults_from_env(var: str = ENV_VAR) -> FailurePlan:
    """The failures that environment variable `var` asks for (an empty plan when it is unset or empty)."""
    return parse_failures(os.environ.get(var, ""))


class KillWhenPickled:
    """Put it in a state you save: serializing it SIGKILLs the process, i.e. the save dies in the middle.

    With `pickle.dump` to a file, what comes before this object in the state has been written and what comes after
    has not. `torch.save` first opens (and so truncates) the file, then pickles the whole state into memory, then
    writes it: there the kill comes after the open and before the first byte is written — an empty file.
    """

    def __reduce__(self):
        kill_this_process()
        return (KillWhenPickled, ())  # not reached


def kill_after_open(path) -> None:
    """From now on, the first time this process opens `path` for writing, it dies right after the open.

    An audit hook (PEP 578) sees Python's `open()` and `os.open()` of `path`; it performs that open (so a "w" open
    truncates the file, as the real one would have) and SIGKILLs the process: the state a crash leaves when it comes
    just after a program started overwriting the file. (Files opened by C++ code, e.g. `torch.save(obj, "name")`,
    are not seen: use `KillWhenPickled` for those.)
    """
    target = os.path.realpath(path)
    armed = [True]

    def hook(event, args):
        if event != "open" or not armed[0] or not args or not isinstance(args[0], (str, bytes, os.PathLike)):
            return
        if os.path.realpath(os.fsdecode(args[0])) != target or not _opens_for_writing(args[1], args[2]):
            return
        armed[0] = False  # our own open below raises the event again
        flags = args[2] if isinstance(args[2], int) and args[2] >= 0 else _flags_of(args[1])
        os.close(os.open(target, flags & ~(os.O_EXCL), 0o644))
        kill_this_process()

    sys.addaudithook(hook)


def _opens_for_writing(mode, flags) -> bool:
    if isinstance(mode, str):
        return any(c in mode for c in "wax+")
    return isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR))


def _flags_of(mode) -> int:
    if "w" in mode:
        return os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    return os.O_WRONLY | os.O_CREAT
