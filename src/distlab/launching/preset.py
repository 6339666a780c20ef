"""`LaunchPreset`: the deadlines a caller's launches share, declared once (a lesson's first cell, a set's checks).
Standard library only: the grader's registry of exercise sets (autograde/sets) reads it without importing torch.

    LAUNCH = distlab.LaunchPreset(timeout=60, collective_timeout=15, backend="gloo")
    launch = LAUNCH.launch                                # launch(fn, 4, args=(...,)); launch(fn, 4, timeout=120)
    student.launch(name, 4, **preset.kwargs())           # the grader's sandbox takes the same keywords
"""
from __future__ import annotations

from dataclasses import dataclass, fields

BACKENDS = ("gloo", "nccl")
_SECONDS = ("timeout", "collective_timeout", "startup_timeout")


@dataclass(frozen=True)
class LaunchPreset:
    """The keyword arguments of `distlab.launch` (and of the grader's `Submission.launch`) that one caller's launches
    share. A field left None is not passed: the callee's own default applies (`launch`'s collective_timeout is half
    of `timeout`, at most 30 s; its startup_timeout is `timeout`, at most 30 s; its backend is NCCL when every rank
    has a GPU, else gloo)."""
    timeout: float = 60.0  # s, the whole launch: then every rank is killed and the error names those not finished
    collective_timeout: float | None = None  # s, one collective waiting for its peers, before it raises on that rank
    startup_timeout: float | None = None  # s, every rank started and joined the process group
    backend: str | None = None  # "gloo" or "nccl"

    def __post_init__(self):
        for name in _SECONDS:
            value = getattr(self, name)
            if value is None and name != "timeout":
                continue
            if type(value) not in (int, float) or not value > 0:
                raise ValueError(f"LaunchPreset.{name} must be a positive number of seconds, got {value!r}")
            if value > self.timeout:
                raise ValueError(f"LaunchPreset.{name} ({value!r} s) is longer than the launch's timeout "
                                 f"({self.timeout!r} s): the launch would end first")
        if self.backend is not None and self.backend not in BACKENDS:
            raise ValueError(f"LaunchPreset.backend must be 'gloo', 'nccl' or None, got {self.backend!r}")

    def kwargs(self) -> dict[str, float | str]:
        """The keyword arguments to pass on: `launch(fn, n, **preset.kwargs())`; None fields left out."""
        given = {field.name: getattr(self, field.name) for field in fields(self)}
        return {name: value for name, value in given.items() if value is not None}

    def launch(self, fn, world_size: int = 4, args: tuple = (), kwargs: dict | None = None, **overrides) -> list:
        """`distlab.launch(fn, world_size, args, kwargs)` with this preset's keywords; `overrides` (any of launch's
        keywords: a longer timeout for one call, `output="hide"`) replace or add to them for this call only."""
        from .launcher import launch  # imports torch: not at this module's import (the grader's process reads presets)
        return launch(fn, world_size, args, kwargs, **{**self.kwargs(), **overrides})
