"""`Deadline`: a moment on `time.monotonic()`'s clock and the limit it was set from. Standard library only, so that
the grader (autograde), the benchmarks and the tests use it without importing torch.

    deadline = Deadline.after(30)
    while not done() and not deadline.passed():
        wait(min(0.1, deadline.left()))
    if not done():
        raise TimeoutError(f"not done within {deadline.seconds:g} s")
"""
from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Deadline:
    """A moment on `time.monotonic()`'s clock, and the limit in seconds it was set from (an error names it). `launch`
    keeps its timeouts as these; the grader's sandbox keeps its budget and each frame's limit as one too."""
    at: float
    seconds: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds, seconds)

    def left(self) -> float:
        """Seconds until the deadline: negative once it has passed."""
        return self.at - time.monotonic()

    def passed(self) -> bool:
        return time.monotonic() >= self.at
