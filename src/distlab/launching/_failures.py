"""How a launch ends when it does not return: the error it raises, first line first, and what the ranks were doing.

A mixin of `launcher._Run` (it reads the run's state: `procs`, `results`, `failures`, `crashes`, `arrived`, ...).
"""
from __future__ import annotations

import json
import multiprocessing as mp
import multiprocessing.connection
import os
import signal
import time

from . import _explain, _where
from ._output import clean_stack_dump
from ..errors import LaunchTimeout, RankCrashed, StartupTimeout, interruption, rank_failure

ASK_S = 0.5  # how long the notebook waits for the ranks to say where they are
REPORTS_S = 0.2  # after a Ctrl-C, how long it waits for the reports of ranks that got it too (Jupyter's Stop button)


class FailureReports:

    def _raise_failure(self):
        unfinished = self._unfinished()
        if self.crashes:  # a rank that died is the cause; errors on its peers are the consequence
            self.stop()
            rank, code = self.crashes[0]
            raise RankCrashed(rank, code, unfinished, self._other_failures(rank), finished=sorted(self.results))
        _, rank, report = min(self.failures, key=lambda f: (_consequence(f[2]), f[0], f[1]))
        headline = self._explain_timeout(rank, report, unfinished)
        self.stop()
        raise rank_failure(report, unfinished, self._other_failures(rank), sorted(self.results), headline) from None

    def _explain_timeout(self, rank: int, report: dict, unfinished: list[int]) -> str | None:
        """For a rank that timed out waiting for a peer: why that peer did not come (see `_explain`)."""
        if not (report.get("timed_out") and _explain.waiting(report.get("where"))):
            return None
        wheres = {r: rep.get("where") or {} for _, r, rep in self.failures}
        wheres.update(self._ask_where(unfinished))
        failed = {r: rep["summary"].splitlines()[0] for _, r, rep in self.failures
                  if not rep.get("timed_out") and not _consequence(rep)}
        return _explain.explain_wait(rank, self.collective_timeout, wheres, set(self.results), failed)

    def _other_failures(self, first_rank: int) -> list[str]:
        lines = [f"rank {r}: {rep['summary'].splitlines()[0] if rep['summary'] else '?'}"
                 for _, r, rep in sorted(self.failures, key=lambda f: f[1]) if r != first_rank]
        lines += [f"rank {r}: exited with code {code}" for r, code in self.crashes if r != first_rank]
        return lines

    def _unfinished(self) -> list[int]:
        done = set(self.results) | {r for _, r, _ in self.failures} | {r for r, _ in self.crashes}
        return [r for r in range(self.world_size) if r not in done]

    def _raise_timeout(self, timeout: float):
        unfinished = [r for r in range(self.world_size) if r not in self.results]
        wheres = self._ask_where(unfinished)
        self._print_stacks(unfinished)
        self.stop()
        raise LaunchTimeout(timeout, unfinished, sorted(self.results), self._describe(unfinished, wheres, False))

    def _raise_startup_timeout(self, startup_timeout: float):
        missing = sorted(set(range(self.world_size)) - self.joined)
        never_started = [r for r in missing if r not in self.arrived]
        self._print_stacks([r for r in missing if r in self.arrived])
        self.stop()
        raise StartupTimeout(startup_timeout, missing, never_started)

    def interruption(self) -> KeyboardInterrupt:
        """Ctrl-C or the Stop button: one line, "stopped 4 ranks; they were all in `recv` from ..."."""
        try:
            self._collect_reports(REPORTS_S)  # in a notebook the ranks got the SIGINT too: their own reports say more
            wheres = self._ask_where(self._unfinished())
        except KeyboardInterrupt:  # pressed again: stop without asking
            wheres = {}
        wheres.update({r: rep.get("where") for _, r, rep in self.failures})  # e.g. the ranks' own KeyboardInterrupt
        ranks = [r for r in range(self.world_size) if r not in self.results and r not in dict(self.crashes)]
        return interruption(self._describe(ranks, wheres, True))

    def _collect_reports(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while self.result_conns and (left := end - time.monotonic()) > 0:
            ready = mp.connection.wait(list(self.result_conns), timeout=left)
            if not ready:
                return
            for conn in ready:
                self._receive(conn)

    def _describe(self, ranks: list[int], wheres: dict, stopped: bool) -> str:
        waiting = [r for r in ranks if _explain.waiting(wheres.get(r))]
        why = _explain.explain_wait(waiting[0], None, wheres, set(self.results), {}) if waiting else None
        if why and (not stopped or "a deadlock" in why):  # a Ctrl-C catches ranks out of step: only a cycle tells
            return ("stopped: " if stopped else "") + why
        return _explain.describe_ranks(ranks, wheres, self.arrived, self.joined, set(self.results), stopped)

    def _ask_where(self, ranks: list[int]) -> dict[int, dict]:
        """Ask running ranks where they are (`_where`); the answers that came within `ASK_S`."""
        asked = [r for r in ranks if r in self.arrived and self.procs[r].exitcode is None]
        for rank in asked:
            _signal(self.procs[rank], _where.ASK)
        answers, end = {}, time.monotonic() + ASK_S
        while len(answers) < len(asked) and time.monotonic() < end:
            self.output.read_for(0.02) if self.output.waitables() else time.sleep(0.02)
            for rank in asked:
                try:
                    with open(os.path.join(self.tmp_dir, f"where{rank}.json")) as f:
                        answers[rank] = json.load(f)
                except (FileNotFoundError, ValueError):
                    pass
        return answers

    def _print_stacks(self, ranks: list[int]) -> None:
        """Ask each stuck rank where it is (faulthandler answers SIGUSR1, even inside a C++ collective)."""
        for rank in ranks:
            _signal(self.procs[rank], signal.SIGUSR1)
        self.output.read_for(0.5)  # meanwhile, whatever they printed last
        for rank in ranks:
            try:
                with open(os.path.join(self.tmp_dir, f"rank{rank}.txt")) as f:
                    lines = clean_stack_dump(f.read())
            except FileNotFoundError:  # it had not yet set up its stack dump: it never got far enough to be stuck
                continue
            if lines:
                self.output.add_lines(rank, "err", [f"where rank {rank} was stuck (most recent call first):"] + lines)


def _consequence(report: dict) -> bool:
    """An error that another rank's failure caused: gloo closes a rank's connections when it times out, so that its
    peers may report "Connection closed by peer" before their own timeouts."""
    return "Connection closed by peer" in report["summary"] or "Connection reset by peer" in report["summary"]


def _signal(proc, signum) -> None:
    try:
        os.kill(proc.pid, signum)
    except (ProcessLookupError, TypeError):
        pass
