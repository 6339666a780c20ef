"""The records a grading run writes and reads back: one `StudentResult` per student folder, one `TestOutcome` per test
cell, one `ClassReport` per run (grades.json). grade.py fills them, report.py turns them into grades.csv and report.txt,
merge.py joins the reports of shards, gradebook.py adds the instructor's manual marks; an instructor's own script
reads grades.json with these keys.

    import json; from autograde.results import ClassReport
    report: ClassReport = json.loads(open("grading/01_data_parallelism/grades.json").read())

They are JSON objects (TypedDicts, checked by a type checker, not at run time), so that grades.json stays the plain
file instructors already read; `tests/test_nbgrader.py` checks that every key a real run writes is declared here.
Every key is optional (total=False) where a step may not reach it: a student refused before grading has a status and
a reason only.
"""
from __future__ import annotations

from typing import TypedDict

# A student's status: every folder ends in one of the first four; SUBMITTED only while a run is under way.
GRADED, NOT_SUBMITTED, FAILED, INVALID_ID = "graded", "not submitted", "grading failed", "invalid student id"
SUBMITTED = "submitted"  # handed in, not graded yet: every such student ends GRADED or FAILED
SANDBOXED, UNSAFE = "bubblewrap", "none (unsafe)"  # StudentResult["sandbox"]


class TestOutcome(TypedDict, total=False):
    """One test cell of one student, from the autograded notebook (what the trusted check wrote)."""
    score: float | None  # the gradebook's score (None: nbgrader recorded none)
    points: float  # what the cell is worth
    passed: bool  # score == points
    error: str  # for a failed cell: "ExceptionName: message", at most 300 characters
    timed_out: bool  # the check's call, launch or cell ran out of time
    sandbox_stopped: bool  # the sandbox was stopped (and restarted) during this cell


class ManualMark(TypedDict, total=False):
    """An instructor's mark in the gradebook (formgrader), kept across regrades (autograde/gradebook.py)."""
    manual_score: float | None
    extra_credit: float | None


class StudentResult(TypedDict, total=False):
    """One student folder of the class: grades.json's `students[student_id]`, a row of grades.csv."""
    status: str  # GRADED, NOT_SUBMITTED, FAILED or INVALID_ID
    reason: str  # why it is not graded, or what is missing from a graded one
    files: dict[str, str]  # {notebook name: path of the submitted file}
    score: float  # after the late penalty, if any
    max_score: float
    cells: dict[str, float]  # {grade_id: score}, from the gradebook
    cell_max: dict[str, float]  # {grade_id: points}, from the gradebook
    tests: dict[str, TestOutcome]  # {grade_id: outcome}
    cell_errors: int  # errors raised by the student's own (not test) cells
    first_cell_error: str
    seconds: float | None  # in the sandbox (None: not measured, e.g. interrupted)
    sandbox: str  # SANDBOXED or UNSAFE
    gradebook: str  # the path of the group's gradebook.db it was graded in
    corrections: list[str]  # what normalising its folder changed or ignored (autograde/normalise.py, timestamp.txt)
    submitted_at: str  # ISO time from its timestamp.txt
    submitted_at_s: float  # the same, in seconds since the epoch
    late_s: float  # seconds after the due date (negative: early), with --due
    score_before_late_penalty: float
    regraded_at: str  # ISO time of its last --only regrade
    feedback: str  # set when its feedback page is plain or missing, and why
    manual: dict[str, ManualMark]  # {grade_id: the instructor's mark}
    manual_review: list[str]  # what the instructor should look at again after a regrade


class ClassReport(TypedDict, total=False):
    """grades.json: one run (or the merge of a class's shards)."""
    assignment: str
    submissions: str  # the folder graded
    cells: dict[str, float]  # {grade_id: points}, in notebook order
    max_score: float
    students: dict[str, StudentResult]
    shard: list[int]  # [K, N]
    parts: list[str]  # a merge: the --out folders it joined
    limits: dict  # the sandbox's limits (autograde/limits.py SandboxLimits, as a dict)
    seed: int | None  # the checks' secret seed (--only regrades with it)
    due: float | None
    late_penalty: float
    gradebook_corrections: list[str]  # manual scores grade.py reset in the gradebooks
    interrupted: bool  # Ctrl-C: the students not reached are FAILED, with that reason


STUDENT_KEYS = frozenset(StudentResult.__annotations__)
TEST_KEYS = frozenset(TestOutcome.__annotations__)
REPORT_KEYS = frozenset(ClassReport.__annotations__)
