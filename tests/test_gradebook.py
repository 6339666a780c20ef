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
from pathlib import Path

import pytest

from autograde import notebooks

REPO = Path(__file__).resolve().parents[1]
ASSIGNMENT = "07_inference"  # the set quickest to grade
(SOURCE,) = notebooks.assignment_notebooks(ASSIGNMENT)
RELEASED = notebooks.EXERCISES / ASSIGNMENT / SOURCE.name
CELLS = notebooks.test_cells(SOURCE)
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


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap")
def test_one_gradebook_with_two_jobs_and_manual_scores_survive_a_regrade(tmp_path):
    """Before: `--jobs 2` left two group gradebooks and `nbgrader export` wrote its header only; a manual score was
    not in grades.csv, and the next grading wiped it."""
    subs, out, work = tmp_path / "subs", tmp_path / "out", tmp_path / "work"
    notebooks.write_notebook(notebooks.make_submission(RELEASED, SOURCE), subs / "alice" / SOURCE.name)
    notebooks.write_notebook(notebooks.read_notebook(RELEASED), subs / "bob" / SOURCE.name)  # blank: 0 points
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
