"""What the ranks print, read from their pipes and shown in the cell with a "[rank k]" prefix."""
from __future__ import annotations

import multiprocessing.connection
import os
import sys
import time


class RankOutput:
    """Reads every rank's stdout and stderr pipes; prints live or, at the end, rank by rank."""

    def __init__(self, world_size: int, mode: str):
        self.mode = mode
        self.fds: dict[int, tuple[int, str]] = {}  # fd -> (rank, "out" | "err")
        self.conns: list = []  # keep the Connection objects alive: they own the fds
        self.partial: dict[tuple[int, str], bytes] = {}
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
        end = time.monotonic() + seconds
        while self.fds and (left := end - time.monotonic()) > 0:
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
        for line in complete:
            self._line(key, line)
        return True

    def add_lines(self, rank: int, stream: str, lines: list[str]) -> None:
        """Show lines as if `rank` had printed them (e.g. its stack, read from elsewhere)."""
        for line in lines:
            self._line((rank, stream), line.encode())

    def _line(self, key: tuple[int, str], raw: bytes) -> None:
        rank, stream = key
        line = f"[rank {rank}] {raw.decode(errors='replace').rstrip(chr(13))}\n"
        if self.mode == "live":
            _write(stream, line)
        elif self.mode == "by_rank":
            self.lines[key].append(line)

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


_PLUMBING = ("/multiprocessing/", "/distlab/_worker.py", "/distlab/_forkserver.py", "/threading.py", '"<string>"')


def clean_stack_dump(text: str) -> list[str]:
    """faulthandler's dump of every thread, reduced to what the learner wrote: the threads running their code.

    Frames of our own plumbing (the forkserver bootstrap, the lifeline thread) are dropped, and so is every thread
    left with no frame at all.
    """
    lines = []
    for block in text.strip().split("\n\n"):
        if "_worker.py" in block and " in watch" in block:
            continue  # the lifeline thread
        lines += [line for line in block.splitlines()[1:] if not any(part in line for part in _PLUMBING)]
    return lines
