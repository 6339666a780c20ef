"""What every trusted check module uses: the `@check` mark and assertions on the plain data a sandbox sends back.

A check is a function named by the grade_id of a test cell, taking the `student` (autograde.sandbox.Submission).
It raises (AssertionError with a message that names the case) to score 0; what it prints is the cell's output.
"""
from __future__ import annotations

import functools
import hashlib
import importlib
import math
import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import torch

from autograde.sandbox import SandboxError, StudentError  # noqa: F401 - re-exported for the check modules
from autograde.seed import draw_seed
from autograde.sets import SETS_DIR  # autograde/sets/<assignment>/: checks.py, ranks.py, statement.py (the registry's)
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


def check(fn=None, *, last=False):
    """Mark `fn` as the trusted check of the test cell whose grade_id is its name. `@check(last=True)`: it runs after
    the set's other checks, for one that hands the learner's function the statement's versions of earlier ones
    (`statement_source`): every check of those earlier functions has then run, so the learner's code cannot keep a
    stand-in it was handed and answer with it in a later check."""
    def mark(fn):
        fn.is_check, fn.runs_last = True, last
        return fn
    return mark if fn is None else mark(fn)


def checks_of(assignment: str) -> dict:
    """{grade_id: check function} of autograde/sets/<assignment>/checks.py, in the order they run: as defined, those
    marked `@check(last=True)` after the others."""
    module = importlib.import_module(f"autograde.sets.{assignment}.checks")
    marked = [(name, fn) for name, fn in vars(module).items() if getattr(fn, "is_check", False)]
    return dict(sorted(marked, key=lambda item: item[1].runs_last))  # stable: the order as defined, within each


# Sent with every statement_source: the stand-ins' table, and the swap that puts them in the notebook's namespace for
# one call. The rank-side procedure execs this in a private dict and calls with_stand_ins, which empties that dict
# when the call ends: nothing of the stand-ins outlives it (a function and its globals are a cycle the GC keeps).
STAND_IN_PREAMBLE = """
STAND_IN = {}


def with_stand_ins(namespace, names, run):
    saved = {name: namespace[name] for name in names if name in namespace}
    namespace.update({name: STAND_IN[name] for name in names})
    try:
        return run()
    finally:
        for name in names:
            namespace.pop(name, None)
        namespace.update(saved)
        globals().clear()  # this private namespace: the stand-ins, STAND_IN, this function
"""


def statement_sections(assignment: str) -> Mapping[str, str]:
    """{name: source} of autograde/sets/<assignment>/statement.py, whose sections start with `# === <name>`
    (what comes before the first is the file's description, never sent); a section's `# needs: a, b` line names the
    sections it uses. Read and split once per version of the file (its inode, modification time and size key the
    cache: a file rewritten, or replaced, is read again), although a check sends sections with every call."""
    path = SETS_DIR / assignment / "statement.py"
    stat = path.stat()
    return _sections(path, stat.st_ino, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _sections(path: Path, inode: int, mtime_ns: int, size: int) -> Mapping[str, str]:
    text = path.read_text()
    sections, name = {}, None
    for line in text.splitlines(keepends=True):
        if line.startswith("# === "):
            name = line[len("# === "):].strip()
            sections[name] = ""
        elif name is not None:
            sections[name] += line
    return MappingProxyType(sections)  # shared by every caller: read-only


def statement_source(assignment: str, names) -> str:
    """The statement's versions of the earlier functions `names`, as source for one call in the sandbox (one mistake,
    one deduction: a later part is judged with them in the place of the learner's). Only these sections, and those
    they need, are sent, with that call: a stand-in is never in the sandbox before, nor after, so a notebook cannot
    answer an earlier part's check with the statement's version of it."""
    sections, chosen = statement_sections(assignment), []

    def add(name):
        if name in chosen:
            return
        needs = next((line for line in sections[name].splitlines() if line.startswith("# needs:")), "# needs:")
        for other in filter(None, (n.strip() for n in needs[len("# needs:"):].split(","))):
            add(other)
        chosen.append(name)

    for name in names:
        add(name)
    return STAND_IN_PREAMBLE + "".join(sections[name] for name in chosen)


def rank_source(assignment: str) -> str:
    """The rank-side procedures of an assignment (run in the sandbox), or "" if it has none."""
    path = SETS_DIR / assignment / "ranks.py"
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


RAISES_WITHIN_S = 10.0  # bad input is refused at once: a call that must raise gets this deadline, not the call's 60 s


def assert_raises(student, exc_type: type, name: str, *args, **kwargs) -> StudentError:
    """`name(*args, **kwargs)` raises `exc_type` (or a subclass) with a message; returns the error. The call has
    RAISES_WITHIN_S: an answer that loops on bad input (06's spike_cost without validation, on an amax of 0) costs that
    check 10 s, not a minute."""
    shown = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
    try:
        deadline = min(RAISES_WITHIN_S, getattr(student, "call_timeout_s", RAISES_WITHIN_S))
        result = student.call(name, *args, timeout=deadline, **kwargs)
    except StudentError as error:
        assert exc_type.__name__ in error.type_names, (
            f"{name}({shown}) raised {error.type_names[0]}: {error.message}; expected {exc_type.__name__}")
        assert error.message.strip(), f"{name}({shown}) raised {exc_type.__name__} without a message"
        return error
    raise AssertionError(f"{name}({shown}) returned {result!r}; expected it to raise {exc_type.__name__}")
