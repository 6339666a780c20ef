"""The set's one gradebook (issue 44.4): `nbgrader export` lists every student whatever --jobs is, and a manual score
set in formgrader reaches grades.csv and survives a regrade of that student.

    pytest tests/test_gradebook.py
"""
from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from autograde import notebooks
from distlab import notebook_source

REPO = Path(__file__).resolve().parents[1]
ASSIGNMENT = "07_inference"  # the set quickest to grade
(SOURCE,) = notebooks.assignment_notebooks(ASSIGNMENT)
RELEASED = notebooks.EXERCISES / ASSIGNMENT / SOURCE.name
CELLS = notebook_source.test_cells(SOURCE)
MAX = sum(CELLS.values())
FIRST, SECOND = list(CELLS)[:2]


def nbgrader_export(work: Path, path: Path) -> dict:
    """{student_id: row} of `nbgrader export` run as the README says (from autograde/, the work folder as root)."""
    done = notebooks.run_nbgrader(["export", f"--to={path}"], work=work, timeout=300)
    assert done.returncode == 0, done.stdout
    with open(path) as f:
        return {row["student_id"]: row for row in csv.DictReader(f)}


def grades_csv(out: Path) -> dict:
    with open(out / "grades.csv") as f:
        return {row["student_id"]: row for row in csv.DictReader(f)}


def set_in_formgrader(work: Path, student: str, cell: str, score=None, comment=None) -> None:
    """What formgrader's API does when the instructor types a score or a comment (its apihandlers.py)."""
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{work / 'gradebook.db'}") as gradebook:
        if score is not None:
            grade = gradebook.find_grade(cell, SOURCE.stem, ASSIGNMENT, student)
            grade.manual_score, grade.needs_manual_grade = score, False
        if comment is not None:
            gradebook.find_comment(cell, SOURCE.stem, ASSIGNMENT, student).manual_comment = comment
        gradebook.db.commit()


def a_gradebook(db: Path, students: dict) -> None:
    """A gradebook of the assignment (its first two test cells, one solution cell) with `students`' submissions:
    {student: {cell: (auto_score, manual_score)}}."""
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{db}") as gradebook, warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Object of type")  # nbgrader's add_submission (as autograde/gradebook.py)
        gradebook.add_assignment(ASSIGNMENT)
        gradebook.add_notebook(SOURCE.stem, ASSIGNMENT)
        for cell in (FIRST, SECOND):
            gradebook.add_grade_cell(cell, SOURCE.stem, ASSIGNMENT, max_score=CELLS[cell], cell_type="code")
        gradebook.add_solution_cell("shard_heads", SOURCE.stem, ASSIGNMENT)
        for student, cells in students.items():
            gradebook.add_student(student)
            gradebook.add_submission(ASSIGNMENT, student)
            for cell, (auto, manual) in cells.items():
                grade = gradebook.find_grade(cell, SOURCE.stem, ASSIGNMENT, student)
                grade.auto_score, grade.manual_score = auto, manual
        gradebook.db.commit()


def test_the_instructors_marks_are_kept_and_one_written_while_grading_is_not(tmp_path):
    """The rule of autograde/README.md's "The gradebook is the grader's": marks in the set's gradebook as a run starts
    are put back over the regraded submission (flagged when the autograder's score changed); a mark that appears in
    the gradebook the run graded in is reset."""
    from autograde.grade import GRADED, Group, collect_scores
    from autograde.gradebook import gather, instructor_marks

    work = tmp_path / "work"
    work.mkdir()
    a_gradebook(work / "gradebook.db", {"bob": {FIRST: (0.0, 1.0), SECOND: (0.0, None)}})
    set_in_formgrader(work, "bob", "shard_heads", comment="see figure 2")
    marks = instructor_marks(work / "gradebook.db", ASSIGNMENT)  # as grade() reads them, before grading
    group = Group(work / "regrade", ["bob"])
    group.folder.mkdir()
    # what the regrade's autograding left, and a manual score written while it ran (never by the instructor)
    a_gradebook(group.folder / "gradebook.db", {"bob": {FIRST: (float(CELLS[FIRST]), None), SECOND: (0.0, 2.0)}})
    for kind in ("submitted", "autograded"):
        notebook_source.write_notebook(notebook_source.read_notebook(RELEASED),
                                 group.folder / kind / "bob" / ASSIGNMENT / SOURCE.name)
    students = {"bob": {"status": GRADED, "files": {SOURCE.stem: RELEASED}}}
    corrections = collect_scores(students, [group], ASSIGNMENT, {}, {"sandbox": True})
    assert corrections == [f"bob {SECOND}: manual_score=2.0, extra_credit=None"]
    gather(students, [group], work / "gradebook.db", ASSIGNMENT, marks)
    bob = students["bob"]
    assert bob["cells"] == {FIRST: 1.0, SECOND: 0.0} and bob["score"] == 1.0, bob
    assert bob["manual_review"] == [f"manual score of {FIRST} kept; the autograder's changed from 0.0 to "
                                    f"{float(CELLS[FIRST])}: review it"]
    assert bob["manual"]["shard_heads"]["manual_comment"] == "see figure 2"
    assert (work / "autograded" / "bob" / ASSIGNMENT / SOURCE.name).exists()


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap")
def test_one_gradebook_with_two_jobs_and_manual_scores_survive_a_regrade(tmp_path):
    """Before: `--jobs 2` left two group gradebooks and `nbgrader export` wrote its header only; a manual score was
    not in grades.csv, and the next grading wiped it."""
    subs, out, work = tmp_path / "subs", tmp_path / "out", tmp_path / "work"
    notebook_source.write_notebook(notebooks.make_submission(RELEASED, SOURCE), subs / "alice" / SOURCE.name)
    notebook_source.write_notebook(notebook_source.read_notebook(RELEASED), subs / "bob" / SOURCE.name)  # blank: 0
    command = [sys.executable, "-m", "autograde.grade", ASSIGNMENT, str(subs), "--out", str(out), "--work", str(work),
               "--budget", "120", "--jobs", "2"]
    first = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stdout + first.stderr
    assert (work / "group-1").is_dir()  # graded in two groups
    exported = nbgrader_export(work, tmp_path / "export.csv")
    assert set(exported) == {"alice", "bob"}, exported
    assert float(exported["alice"]["score"]) == MAX and float(exported["bob"]["score"]) == 0
    assert (work / "autograded" / "bob" / ASSIGNMENT / SOURCE.name).exists()  # where formgrader opens it

    # the instructor, in formgrader: a point to bob's blank cell, a comment on his solution, none to alice's second
    set_in_formgrader(work, "bob", FIRST, score=1.0)
    set_in_formgrader(work, "bob", "shard_heads", comment="see the lesson's figure 2")
    set_in_formgrader(work, "alice", SECOND, score=0.0)
    again = subprocess.run([*command, "--only", "bob"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stdout + again.stderr
    rows = grades_csv(out)
    assert float(rows["bob"][FIRST]) == 1 and float(rows["bob"]["score"]) == 1, rows["bob"]
    assert f"manual score: {FIRST} 1" in rows["bob"]["flags"], rows["bob"]
    assert float(rows["alice"][SECOND]) == 0 and float(rows["alice"]["score"]) == MAX - CELLS[SECOND], rows["alice"]
    bob = json.loads((out / "grades.json").read_text())["students"]["bob"]
    assert bob["regraded_at"] and bob["manual"]["shard_heads"]["manual_comment"] == "see the lesson's figure 2"
    exported = nbgrader_export(work, tmp_path / "export-again.csv")
    assert float(exported["bob"]["score"]) == 1 and float(exported["alice"]["score"]) == MAX - CELLS[SECOND]

    # a mark set after the last grading reaches the report without grading again
    set_in_formgrader(work, "alice", SECOND, score=float(CELLS[SECOND]))
    reread = subprocess.run([sys.executable, "-m", "autograde.gradebook", str(out)], cwd=REPO, capture_output=True,
                            text=True, timeout=300)
    assert reread.returncode == 0, reread.stdout + reread.stderr
    rows = grades_csv(out)
    assert float(rows["alice"]["score"]) == MAX and float(rows["bob"]["score"]) == 1, rows
