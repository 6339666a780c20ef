"""How a launch ends when it does not return: the error it raises, first line first, and what the ranks were doing."""
from __future__ import annotations

import json
import os
import signal
import time

from ..errors import LaunchTimeout, RankCrashed, StartupTimeout, interruption, rank_failure
from . import _explain, _where
from .deadline import Deadline
from ._output import clean_stack_dump
from ._ranks import Ranks

ASK_S = 0.5  # how long the notebook waits for the ranks to say where they are
REPORTS_S = 0.2  # after a Ctrl-C, how long it waits for the reports of ranks that got it too (Jupyter's Stop button)


class FailureReports:
    """Turns what `ranks` reported, and where the ranks still running say they are, into the launch's error; stops
    the ranks before it is raised."""

    def __init__(self, ranks: Ranks, collective_timeout: float):
        self.ranks = ranks
        self.collective_timeout = collective_timeout

    def raise_failure(self):
        ranks = self.ranks
        unfinished = ranks.unfinished()
        if ranks.crashes:  # a rank that died is the cause; errors on its peers are the consequence
            ranks.stop()
            rank, code = ranks.crashes[0]
            raise RankCrashed(rank, code, unfinished, self._other_failures(rank), finished=sorted(ranks.results))
        _, rank, report = min(ranks.failures, key=lambda f: (_consequence(f[2]), f[0], f[1]))
        headline = self._explain_timeout(rank, report, unfinished)
        ranks.stop()
        raise rank_failure(report, unfinished, self._other_failures(rank), sorted(ranks.results), headline) from None

    def _explain_timeout(self, rank: int, report: dict, unfinished: list[int]) -> str | None:
        """For a rank that timed out waiting for a peer: why that peer did not come (see `_explain`)."""
        if not (report.get("timed_out") and _explain.waiting(report.get("where"))):
            return None
        wheres = {r: rep.get("where") or {} for _, r, rep in self.ranks.failures}
        wheres.update(ask_where(self.ranks, unfinished))
        failed = {r: rep["summary"].splitlines()[0] for _, r, rep in self.ranks.failures
                  if not rep.get("timed_out") and not _consequence(rep)}
        return _explain.explain_wait(rank, self.collective_timeout, wheres, set(self.ranks.results), failed)

    def _other_failures(self, first_rank: int) -> list[str]:
        lines = [f"rank {r}: {rep['summary'].splitlines()[0] if rep['summary'] else '?'}"
                 for _, r, rep in sorted(self.ranks.failures, key=lambda f: f[1]) if r != first_rank]
        lines += [f"rank {r}: exited with code {code}" for r, code in self.ranks.crashes if r != first_rank]
        return lines

    def raise_timeout(self, timeout: float):
        unfinished = [r for r in range(self.ranks.world_size) if r not in self.ranks.results]
        wheres = ask_where(self.ranks, unfinished)
        print_stacks(self.ranks, unfinished)
        self.ranks.stop()
        described = self._describe(unfinished, wheres, False)
        raise LaunchTimeout(timeout, unfinished, sorted(self.ranks.results), described)

    def raise_startup_timeout(self, startup_timeout: float):
        missing = sorted(set(range(self.ranks.world_size)) - self.ranks.joined)
        never_started = [r for r in missing if r not in self.ranks.arrived]
        print_stacks(self.ranks, [r for r in missing if r in self.ranks.arrived])
        self.ranks.stop()
        raise StartupTimeout(startup_timeout, missing, never_started)

    def interruption(self) -> KeyboardInterrupt:
        """Ctrl-C or the Stop button: one line, "stopped 4 ranks; they were all in `recv` from ..."."""
        try:
            self.ranks.collect_reports(REPORTS_S)  # in a notebook the ranks got the SIGINT too: their reports say more
            wheres = ask_where(self.ranks, self.ranks.unfinished())
        except KeyboardInterrupt:  # pressed again: stop without asking
            wheres = {}
        wheres.update({r: rep.get("where") for _, r, rep in self.ranks.failures})  # e.g. their own KeyboardInterrupt
        stopped = [r for r in range(self.ranks.world_size)
                   if r not in self.ranks.results and r not in dict(self.ranks.crashes)]
        return interruption(self._describe(stopped, wheres, True))

    def _describe(self, which: list[int], wheres: dict, stopped: bool) -> str:
        ranks, waiting = self.ranks, [r for r in which if _explain.waiting(wheres.get(r))]
        why = _explain.explain_wait(waiting[0], None, wheres, set(ranks.results), {}) if waiting else None
        if why and (not stopped or "a deadlock" in why):  # a Ctrl-C catches ranks out of step: only a cycle tells
            return ("stopped: " if stopped else "") + why
        return _explain.describe_ranks(which, wheres, ranks.arrived, ranks.joined, set(ranks.results), stopped)


def _consequence(report: dict) -> bool:
    """An error that another rank's failure caused: gloo closes a rank's connections when it times out, so that its
    peers may report "Connection closed by peer" before their own timeouts."""
    return "Connection closed by peer" in report["summary"] or "Connection reset by peer" in report["summary"]


def ask_where(ranks: Ranks, which: list[int]) -> dict[int, dict]:
    """Ask those of `which` still running where they are (`_where`); the answers that came within `ASK_S`."""
    asked = [r for r in which if r in ranks.arrived and ranks.procs[r].exitcode is None]
    for rank in asked:
        ranks.signal(rank, _where.ASK)
    answers, end = {}, Deadline.after(ASK_S)
    while len(answers) < len(asked) and not end.passed():
        ranks.output.read_for(0.02) if ranks.output.waitables() else time.sleep(0.02)
        for rank in asked:
            try:
                with open(os.path.join(ranks.tmp_dir, f"where{rank}.json")) as f:
                    answers[rank] = json.load(f)
            except (FileNotFoundError, ValueError):
                pass
    return answers


def print_stacks(ranks: Ranks, which: list[int]) -> None:
    """Show the stacks of the stuck ranks `which`, as they print them (faulthandler answers SIGUSR1, even inside
    a C++ collective)."""
    for rank in which:
        ranks.signal(rank, signal.SIGUSR1)
    ranks.output.read_for(0.5)  # meanwhile, whatever they printed last
    for rank in which:
        try:
            with open(os.path.join(ranks.tmp_dir, f"rank{rank}.txt")) as f:
                lines = clean_stack_dump(f.read())
        except FileNotFoundError:  # it had not yet set up its stack dump: it never got far enough to be stuck
            continue
        if lines:
            heading = f"where rank {rank} was stuck (most recent call first):"
            ranks.output.add_lines(rank, "err", [heading] + lines)
