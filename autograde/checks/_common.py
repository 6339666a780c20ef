"""What every trusted check module uses: the `@check` mark and assertions on the plain data a sandbox sends back.

A check is a function named by the grade_id of a test cell, taking the `student` (autograde.sandbox.Submission).
It raises (AssertionError with a message that names the case) to score 0; what it prints is the cell's output.
"""
from __future__ import annotations

import hashlib
import importlib
import math
import os
from pathlib import Path

import torch

from autograde.sandbox import SandboxError, StudentError  # noqa: F401 - re-exported for the check modules
from autograde.seed import draw_seed

CHECKS_DIR = Path(__file__).resolve().parent
# Drawn once per grading process, so that a notebook cannot know the checks' inputs in advance (the checks are
# public: with fixed seeds, a student could precompute the expected outputs). $DISTLAB_GRADING_SEED replays a run;
# grade.py passes the class's seed (recorded in grades.json) in the file $DISTLAB_GRADING_SEED_FILE names, which no
# sandbox can read.
GRADING_SEED = int((Path(os.environ["DISTLAB_GRADING_SEED_FILE"]).read_text().strip()
                    if os.environ.get("DISTLAB_GRADING_SEED_FILE") else None) or draw_seed())


def label_seed(label: str) -> int:
    """63 bits of a hash of the secret seed with `label`: each label's seed is its own (a check's inputs tell nothing
    of another's). torch's CPU generator keeps only the low 32 bits of a seed (mt19937), so `secret ^ crc32(label)`
    gave every label the same 32 bits of secret, and a 48-bit secret 32 effective bits."""
    return int.from_bytes(hashlib.blake2b(f"{GRADING_SEED}:{label}".encode(), digest_size=8).digest(), "big") >> 1


def generator(label: str) -> torch.Generator:
    """A generator for one check's inputs: seeded from this grading run's secret seed and `label` (`label_seed`)."""
    return torch.Generator().manual_seed(label_seed(label))


def draw_int(draw: torch.Generator, low: int, high: int) -> int:
    """An int from `low` to `high` included, drawn from `draw` (a `generator(label)`)."""
    return int(torch.randint(low, high + 1, (1,), generator=draw))


def spread_over_groups(groups, per_group):
    """Per-rank items in global rank order, from `groups` (lists of global ranks) and, for each group, one item per
    member (e.g. each member's share of its group's batches)."""
    placed = {}
    for members, items in zip(groups, per_group, strict=True):
        placed.update(zip(members, items, strict=True))
    return [placed[rank] for rank in range(len(placed))]


def check(fn):
    """Mark `fn` as the trusted check of the test cell whose grade_id is its name."""
    fn.is_check = True
    return fn


def checks_of(assignment: str) -> dict:
    """{grade_id: check function} of autograde/checks/<assignment>.py, in the order they are defined."""
    module = importlib.import_module(f"autograde.checks.{assignment}")
    return {name: fn for name, fn in vars(module).items() if getattr(fn, "is_check", False)}


def ranks_import_dynamo(assignment: str) -> bool:
    """Whether this set's ranks import torch._dynamo (0.6 s of CPU each): building an optimizer or DDP does, and so
    does the first operation under any TorchDispatchMode (`distlab.count_comm`, `track_memory`; torch wraps its
    `__torch_dispatch__` in a lazy `_disable_dynamo`), and some of TinyTransformer's backward. The ranks' forkserver
    imports it once per student, or every rank of every launch imports it again. A checks module that says
    `RANKS_IMPORT_DYNAMO = False` gets a sandbox whose forkserver does not: only where grading the solution is
    measured faster that way (`python -m autograde.try_checks <set>` prints the time of each check)."""
    return getattr(importlib.import_module(f"autograde.checks.{assignment}"), "RANKS_IMPORT_DYNAMO", True)


def rank_source(assignment: str) -> str:
    """The rank-side procedures of an assignment (run in the sandbox), or "" if it has none."""
    path = CHECKS_DIR / f"{assignment}_ranks.py"
    return path.read_text() if path.exists() else ""


def assert_tensor(got, expected: torch.Tensor, *, rtol=None, atol=None, exact=False, where=""):
    """`got` is a plain torch.Tensor with `expected`'s dtype and shape, and close (or equal) values."""
    prefix = f"{where}: " if where else ""
    assert type(got) is torch.Tensor, f"{prefix}expected a torch.Tensor, got {type(got).__name__}"
    assert got.dtype == expected.dtype, f"{prefix}dtype {got.dtype}, expected {expected.dtype}"
    assert got.shape == expected.shape, f"{prefix}shape {tuple(got.shape)}, expected {tuple(expected.shape)}"
    if exact:
        assert torch.equal(got, expected), f"{prefix}values differ from the expected ones (exact comparison)"
    else:
        torch.testing.assert_close(got, expected, rtol=rtol, atol=atol, msg=lambda m: f"{prefix}{m}")


def assert_number(got, expected: float, *, rel=1e-9, abs_tol=0.0, where=""):
    """`got` is an int or float (not a bool) within `rel`/`abs_tol` of `expected`."""
    prefix = f"{where}: " if where else ""
    assert type(got) in (int, float), f"{prefix}expected a number, got {type(got).__name__} {got!r}"
    assert math.isclose(got, expected, rel_tol=rel, abs_tol=abs_tol), f"{prefix}got {got!r}, expected {expected!r}"


def assert_raises(student, exc_type: type, name: str, *args, **kwargs) -> StudentError:
    """`name(*args, **kwargs)` raises `exc_type` (or a subclass) with a message; returns the error."""
    shown = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
    try:
        result = student.call(name, *args, **kwargs)
    except StudentError as error:
        assert exc_type.__name__ in error.type_names, (
            f"{name}({shown}) raised {error.type_names[0]}: {error.message}; expected {exc_type.__name__}")
        assert error.message.strip(), f"{name}({shown}) raised {exc_type.__name__} without a message"
        return error
    raise AssertionError(f"{name}({shown}) returned {result!r}; expected it to raise {exc_type.__name__}")
