"""What the ranks print, read from their pipes and shown in the cell with a "[rank k]" prefix.

A warning a rank prints on stderr is shown on stdout: it is advice, not an error, and a notebook graded with nbgrader
scores a cell 0 for any output on stderr (the learner's Validate fails it too). Everything else a rank writes to
stderr (a traceback, its own messages, C++ errors) stays on stderr.
"""
from __future__ import annotations

import multiprocessing.connection
import os
import re
import sys

from .deadline import Deadline

# The first line of a Python warning as `warnings` prints it: "<file>:<line>: <Category>: <message>"; the message may
# go on over more lines, then (if Python found the source file) the source line follows, indented by two spaces.
PYTHON_WARNING = re.compile(r"[^\s:][^:]*:\d+: \w*Warning: ")
# torch's C++ warnings: "[W1015 10:11:12.123456 file.cpp:12] ...", behind "[rank0]:" when c10d logs them
CPP_WARNING = re.compile(r"(\[rank\d+\]:)?\[W\d{4} \d\d:\d\d:\d\d")
ENDS_A_WARNING = re.compile(r"Traceback \(most recent call last\)|Exception ignored |(\[rank\d+\]:)?\[[EFIW]\d{4} ")


class StderrWarnings:
    """Tells the lines of a warning on a rank's stderr from the rest, line by line, pipe by pipe."""

    def __init__(self):
        self.reads = 0  # counts the reads: a warning's message lines come in the same read as its first line
        self.began: dict[tuple[int, str], int] = {}  # stderr pipes inside a warning -> the read it began in

    def new_read(self) -> None:
        self.reads += 1

    def is_warning(self, key: tuple[int, str], text: str) -> bool:
        """Whether this stderr line belongs to a warning: its first line, a further line of its message (in the same
        read: `warnings` writes a warning at once) or the indented source line under it (in any later read)."""
        began = self.began.pop(key, None)
        if PYTHON_WARNING.match(text):
            self.began[key] = self.reads
            return True
        if CPP_WARNING.match(text):
            return True
        if began is None or ENDS_A_WARNING.match(text):
            return False
        if text.startswith("  "):  # the source line: the warning ends with it
            return True
        if began == self.reads:  # the message goes on
            self.began[key] = began
            return True
        return False


class RankOutput:
    """Reads every rank's stdout and stderr pipes; prints live or, at the end, rank by rank."""

    def __init__(self, world_size: int, mode: str):
        self.mode = mode
        self.fds: dict[int, tuple[int, str]] = {}  # fd -> (rank, "out" | "err")
        self.conns: list = []  # keep the Connection objects alive: they own the fds
        self.partial: dict[tuple[int, str], bytes] = {}
        self.warnings = StderrWarnings()
        self.lines: dict[tuple[int, str], list[str]] = {(r, s): [] for r in range(world_size) for s in ("out", "err")}

    def add(self, rank: int, out_conn, err_conn) -> None:
        for conn, stream in ((out_conn, "out"), (err_conn, "err")):
            os.set_blocking(conn.fileno(), False)
            self.fds[conn.fileno()] = (rank, stream)
            self.conns.append(conn)

    def waitables(self) -> list[int]:
        return list(self.fds)

    def read(self, ready) -> None:
        for fd in [fd for fd in self.fds if fd in ready]:
            self._read_fd(fd)

    def read_for(self, seconds: float) -> None:
        """Keep reading for a while (e.g. while stuck ranks dump their stacks)."""
        end = Deadline.after(seconds)
        while self.fds and (left := end.left()) > 0:
            self.read(multiprocessing.connection.wait(self.waitables(), timeout=left))

    def drain(self) -> None:
        """Read whatever is left in the pipes (the ranks are gone), then close them."""
        for fd in list(self.fds):
            while fd in self.fds and self._read_fd(fd):
                pass
        for key, rest in self.partial.items():
            if rest:
                self._line(key, rest)
        self.partial = {}
        for conn in self.conns:
            conn.close()
        self.fds, self.conns = {}, []

    def _read_fd(self, fd: int) -> bool:
        """Read one chunk; False when there is nothing more to read now."""
        key = self.fds[fd]
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return False
        except OSError:
            chunk = b""
        if not chunk:  # EOF: the rank closed its end (it exited)
            del self.fds[fd]
            return False
        *complete, rest = (self.partial.get(key, b"") + chunk).split(b"\n")
        self.partial[key] = rest
        self.warnings.new_read()
        for line in complete:
            self._line(key, line)
        return True

    def add_lines(self, rank: int, stream: str, lines: list[str]) -> None:
        """Show lines as if `rank` had printed them (e.g. its stack, read from elsewhere)."""
        for line in lines:
            self._line((rank, stream), line.encode(), classify=False)

    def _line(self, key: tuple[int, str], raw: bytes, classify: bool = True) -> None:
        rank, stream = key
        text = raw.decode(errors="replace").rstrip(chr(13))
        if stream == "err" and classify and self.warnings.is_warning(key, text):
            stream = "out"
        line = f"[rank {rank}] {text}\n"
        if self.mode == "live":
            _write(stream, line)
        elif self.mode == "by_rank":
            self.lines[(rank, stream)].append(line)

    def flush(self) -> None:
        """Print what was held back, rank 0 first: the same text for the same run, whatever the timing."""
        for stream in ("out", "err"):
            text = "".join(line for (rank, s), lines in sorted(self.lines.items()) if s == stream for line in lines)
            if text:
                _write(stream, text)
        for lines in self.lines.values():
            lines.clear()


def _write(stream: str, text: str) -> None:
    target = sys.stdout if stream == "out" else sys.stderr
    target.write(text)
    target.flush()


_PLUMBING = ("/multiprocessing/", "/distlab/launching/_worker.py",
             "/distlab/launching/forkserver.py", "/threading.py", '"<string>"')
LIFELINE_THREAD = "lifeline_thread"  # the function `_worker._watch_lifeline` runs in its thread (tests/test_output.py)


def clean_stack_dump(text: str) -> list[str]:
    """faulthandler's dump of every thread, reduced to what the learner wrote: the threads running their code.

    Frames of our own plumbing (the forkserver bootstrap) are dropped, and so are our threads (`_worker`'s lifeline,
    `_where`'s) and every thread left with no frame at all.
    """
    lines = []
    for block in text.strip().split("\n\n"):
        if ("_worker.py" in block and f" in {LIFELINE_THREAD}" in block) or "/distlab/launching/_where.py" in block:
            continue  # the lifeline thread (`_worker._watch_lifeline`), the thread of `_where.answer_requests`
        lines += [line for line in block.splitlines()[1:] if not any(part in line for part in _PLUMBING)]
    return _hide_library_frames(lines)


# A frame inside an installed package, as faulthandler writes it: the package, and the function
_LIBRARY_FRAME = re.compile(r'  File ".*?/(?:site|dist)-packages/([^/"]+)[^"]*", line \d+ in (\S+)')


def _hide_library_frames(lines: list[str]) -> list[str]:
    """Each run of frames inside installed packages (torch's collective, its logging wrapper) becomes one line naming
    the innermost, "  in torch's `all_reduce`": the frames left are the learner's own."""
    shown, in_library = [], False
    for line in lines:
        frame = _LIBRARY_FRAME.match(line)
        if not (frame and in_library):
            shown.append(f"  in {frame[1]}'s `{frame[2]}`" if frame else line)
        in_library = frame is not None
    return shown
