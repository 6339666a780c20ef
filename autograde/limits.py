"""The limits of one student's sandbox, in one place: their defaults, units and help text.

    python -m autograde.grade --help      # the options below, as grade.py offers them

`SandboxLimits` is what grade.py's options build (`from_args`), what it hands to `nbgrader autograde`
(`nbgrader_options`, one `--SandboxedExecute.<field>=` each), what `SandboxedExecute`'s configurable traits are made
from (`traits`), and what `autograde.sandbox.Submission` and `autograde.cgroup` take as defaults. Standard library
only: nbgrader's other commands import this without torch.
"""
from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field


def _limit(default, flag: str, help: str, scale: float = 1.0, trait_help: str | None = None):
    """A field with its command-line flag and help; `scale`: the field's value is the option's times it (GiB → bytes);
    `trait_help`: SandboxedExecute's help where the field's unit or sense differs from the option's."""
    return field(default=default, metadata={"flag": flag, "help": help, "scale": scale,
                                            "trait_help": trait_help or help})


@dataclass(frozen=True)
class SandboxLimits:
    sandbox: bool = _limit(True, "--unsafe-no-sandbox",
                           "run students' code without bubblewrap (UNSAFE: a student can read the solutions and change "
                           "grades); the CSV records it",
                           trait_help="run the student's code in bubblewrap (False: unsafe, a plain process)")
    budget_s: float = _limit(300.0, "--budget", "seconds one student's notebook may take in all, in its sandbox "
                                                "(default 300)")
    cell_timeout_s: float = _limit(60.0, "--cell-timeout",
                                   "seconds one cell of a student's notebook may run when it is run at the sandbox's "
                                   "start (default 60; a loop inside a function meets --call-timeout instead)")
    call_timeout_s: float = _limit(60.0, "--call-timeout",
                                   "seconds one call of a check into the student's code may take (default 60); a "
                                   "function that runs past it, or that a launch's ranks were in past the launch's "
                                   "deadline, is not run again: later checks that call it fail at once, the others "
                                   "still run")
    max_restarts: int = _limit(2, "--max-restarts",
                               "fresh sandboxes one check may start after the student's code stopped one (default 2); "
                               "each later check starts fresh again, within --budget")
    # An honest student of any set peaks at 325-400 MiB and 18-42 tasks (autograde/try_checks.py, 4 ranks): ~10x that.
    memory_bytes: int = _limit(4 * 2**30, "--memory-gib",
                               "GiB of memory one student's sandbox may use, all its processes together (default 4), "
                               "where the system lets the grader make a control group (grades.json says if it did)",
                               scale=2**30, trait_help="bytes of memory of one student's sandbox, all processes "
                                                       "together, where a control group can be made")
    tasks: int = _limit(512, "--tasks", "processes and threads one student's sandbox may run at once (default 512; "
                                        "same)")
    cpus: float = _limit(0.0, "--cpus", "cores one student's sandbox may use at most, e.g. cores / --jobs (default 0: "
                                        "no cap); every student gets an equal CPU weight where the control group has a "
                                        "CPU controller")

    def __post_init__(self):
        if min(self.budget_s, self.cell_timeout_s, self.call_timeout_s) <= 0 or self.max_restarts < 0 or self.cpus < 0:
            raise ValueError("--budget, --cell-timeout and --call-timeout must be positive, --max-restarts and --cpus "
                             "at least 0")
        if self.memory_bytes <= 0 or self.tasks <= 0:
            raise ValueError("--memory-gib and --tasks must be positive")

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """grade.py's options for these limits (their flags, defaults and help come from the fields)."""
        for f in dataclasses.fields(SandboxLimits):
            flag, scale = f.metadata["flag"], f.metadata["scale"]
            if f.type in ("bool", bool):  # the one boolean is an opt-out flag
                parser.add_argument(flag, action="store_true", help=f.metadata["help"])
            else:
                kind = int if f.type in ("int", int) and scale == 1 else float
                parser.add_argument(flag, type=kind, default=f.default / scale if scale != 1 else f.default,
                                    help=f.metadata["help"])

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> SandboxLimits:
        """The limits grade.py's parsed options ask for (ValueError, naming the options, when one is out of range)."""
        values = {}
        for f in dataclasses.fields(cls):
            given = getattr(args, f.metadata["flag"].lstrip("-").replace("-", "_"))
            values[f.name] = (not given if f.type in ("bool", bool) else
                              int(given * f.metadata["scale"]) if f.metadata["scale"] != 1 else given)
        return cls(**values)

    def nbgrader_options(self) -> list[str]:
        """The `nbgrader autograde` options that give SandboxedExecute these limits."""
        return [f"--SandboxedExecute.{f.name}={getattr(self, f.name)}" for f in dataclasses.fields(self)]

    @staticmethod
    def traits() -> dict:
        """SandboxedExecute's configurable traits, one per field, with the field's default and help."""
        from traitlets import Bool, Float, Int
        kinds = {"bool": Bool, "float": Float, "int": Int}
        return {f.name: kinds[f.type](f.default, help=f.metadata["trait_help"]).tag(config=True)
                for f in dataclasses.fields(SandboxLimits)}

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


DEFAULT = SandboxLimits()
