"""The errors `distlab.launch` raises: each says which rank, what happened, and what was still running."""
from __future__ import annotations

import linecache
import signal

import cloudpickle

from .launching._explain import learner_frames


class LaunchError(RuntimeError):
    """Base class: a launch did not return a result from every rank. All its ranks are gone when it is raised."""

    def __init__(self, message: str, unfinished: list[int]):
        super().__init__(message)
        self.unfinished = unfinished

    def _render_traceback_(self) -> list[str]:
        """How IPython shows it in a notebook: the message, first line first, without the frames of the notebook's
        side of `launch` (the learner's own frames, from the rank, are in the message)."""
        return _rendered(type(self).__name__, str(self))


class RankFailed(LaunchError):
    """A rank raised. `rank` is the one that raised first; `exception` is its exception (when it could be sent);
    `traceback_text` its whole traceback, of which the message shows the learner's frames only (`frames`).

    The message's first line says what happened: "rank 2 failed first: ValueError: boom", or, when the rank timed
    out waiting for a peer, why (`headline`: "rank 0 waited 5 s in `recv` from rank 3, which ...: a deadlock")."""

    def __init__(self, rank: int, summary: str, traceback_text: str, exception, unfinished, others, finished=(),
                 headline: str | None = None, frames: list[str] | None = None):
        message = headline or f"rank {rank} failed first: {summary}"
        if frames is None:
            message += f"\n\n{traceback_text.rstrip()}"
        else:
            message += "".join(f"\n{line}" for line in frames) + (f"\n{summary}" if headline else "")
        message += _tail(unfinished, others, finished)
        super().__init__(message, unfinished)
        self.rank, self.summary, self.exception, self.traceback_text = rank, summary, exception, traceback_text


class RankCrashed(LaunchError):
    """A rank died without reporting: killed by a signal (e.g. out of memory, SIGKILL) or exited (`os._exit`)."""

    def __init__(self, rank: int, exitcode: int | None, unfinished, others, finished=()):
        if exitcode is not None and exitcode < 0:
            how = f"was killed by signal {signal.Signals(-exitcode).name}"
        else:
            how = f"exited with code {exitcode} before returning a result"
        super().__init__(f"rank {rank} {how}" + _tail(unfinished, others, finished), unfinished)
        self.rank, self.exitcode = rank, exitcode
        self.signal = signal.Signals(-exitcode) if exitcode is not None and exitcode < 0 else None


class LaunchTimeout(LaunchError, TimeoutError):
    """The wall-clock deadline passed: `unfinished` ranks were still running (their stacks were printed)."""

    def __init__(self, timeout: float, unfinished: list[int], finished: list[int], where: str = ""):
        message = (f"launch deadline of {timeout:g} s passed: rank(s) {_ranks(unfinished)} did not finish"
                   f"{f' (rank(s) {_ranks(finished)} did)' if finished else ''}{f': {where}' if where else ''}\n"
                   "All ranks were killed; their stacks are printed above. A common cause: a loop that never ends, "
                   "or a rank waiting for something no other rank does.")
        super().__init__(message, unfinished)
        self.timeout, self.finished = timeout, finished


class StartupTimeout(LaunchError, TimeoutError):
    """Some ranks did not join the process group within `startup_timeout`: `missing` (of which `never_started` had
    not even started running). Nothing of the learner's function ran to completion; all ranks were killed."""

    def __init__(self, startup_timeout: float, missing: list[int], never_started: list[int]):
        connecting = [r for r in missing if r not in never_started]
        why = []
        if never_started:
            why.append(f"rank(s) {_ranks(never_started)} had not started (the machine may be overloaded)")
        if connecting:
            why.append(f"rank(s) {_ranks(connecting)} were still connecting to their peers")
        message = (f"rank(s) {_ranks(missing)} did not join the process group within {startup_timeout:g} s: "
                   f"{'; '.join(why)}. All ranks were killed; the function did not run to completion. "
                   "Try again, or pass a larger `startup_timeout`.")
        super().__init__(message, missing)
        self.timeout, self.missing, self.never_started = startup_timeout, missing, never_started


def interruption(message: str) -> KeyboardInterrupt:
    """A KeyboardInterrupt (the kernel sees an interruption: Run All stops) that IPython shows as its message alone,
    not as a traceback through `selectors.py`."""
    exc = KeyboardInterrupt(message)
    exc._render_traceback_ = lambda: _rendered("KeyboardInterrupt", message)
    return exc


def _rendered(name: str, message: str) -> list[str]:
    return [f"\x1b[0;31m{name}\x1b[0m: {message}"]


def rank_failure(report: dict, unfinished: list[int], others: list[str], finished=(), headline=None) -> RankFailed:
    """Rebuild a rank's error report (sent by the worker) as a `RankFailed`."""
    frames = None
    if "traceback" in report:
        tb = cloudpickle.loads(report["traceback"])
        _fill_lines(tb)
        text = "".join(tb.format())
        frames = learner_frames(tb.stack)
    else:
        text = report["traceback_text"]
    exception = None
    if "exception" in report:
        try:
            exception = cloudpickle.loads(report["exception"])
        except Exception:
            pass
    return RankFailed(report["rank"], report["summary"], text, exception, unfinished, others, finished, headline,
                      frames)


def _fill_lines(tb) -> None:
    """The rank could not read notebook cells' source; this process can (IPython keeps them in linecache)."""
    while tb is not None:
        for frame in tb.stack:
            if getattr(frame, "_line", "") is None:
                frame._line = linecache.getline(frame.filename, frame.lineno)
        tb = tb.__cause__ or (None if tb.__suppress_context__ else tb.__context__)


def _ranks(ranks: list[int]) -> str:
    return ", ".join(map(str, ranks))


def _tail(unfinished: list[int], others: list[str], finished=()) -> str:
    text = ""
    if others:
        text += "\n\nThen, on other ranks (often a consequence of the first failure):\n  " + "\n  ".join(others)
    if unfinished:
        text += f"\n\nStill running when it happened, and killed: rank(s) {_ranks(unfinished)}."
    if finished:
        text += (f"\n\nHad already returned: rank(s) {_ranks(finished)}. (A rank that returns while its peers still "
                 "wait for it in a collective makes them time out.)")
    return text
