"""`LaunchPreset`: the deadlines a caller's launches share, declared once (an exercise set's checks; later a lesson).
Standard library only: the grader's registry of exercise sets (autograde/sets) reads it without importing torch.

    preset = LaunchPreset(timeout=30, collective_timeout=10)
    distlab.launch(fn, 4, **preset.kwargs())            # or the grader's student.launch(name, 4, **preset.kwargs())
"""
from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class LaunchPreset:
    """The keyword arguments of `distlab.launch` (and of the grader's `Submission.launch`) that one caller's launches
    share. A field left None is not passed: the callee's own default applies (`launch`'s collective_timeout is half
    of `timeout`, at most 30 s)."""
    timeout: float = 60.0  # s, the whole launch: then every rank is killed and the error names those not finished
    collective_timeout: float | None = None  # s, one collective waiting for its peers, before it raises on that rank

    def __post_init__(self):
        for field in fields(self):
            value = getattr(self, field.name)
            if value is None and field.name != "timeout":
                continue
            if type(value) not in (int, float) or not value > 0:
                raise ValueError(f"LaunchPreset.{field.name} must be a positive number of seconds, got {value!r}")
        if self.collective_timeout is not None and self.collective_timeout > self.timeout:
            raise ValueError(f"LaunchPreset.collective_timeout ({self.collective_timeout!r} s) is longer than the "
                             f"launch's timeout ({self.timeout!r} s): the launch would end first")

    def kwargs(self) -> dict[str, float]:
        """The keyword arguments to pass on: `launch(fn, n, **preset.kwargs())`; None fields left out."""
        given = {field.name: getattr(self, field.name) for field in fields(self)}
        return {name: value for name, value in given.items() if value is not None}
