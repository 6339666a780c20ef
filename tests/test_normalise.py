"""One student's notebook never stops another's grading: what nbgrader would refuse is corrected before it sees the
class (autograde/normalise.py), and whoever nbgrader still leaves ungraded is graded again alone (grade.py).

    pytest tests/test_normalise.py
"""
from __future__ import annotations

import copy
import csv
import json
import shutil
from pathlib import Path

import pytest

from autograde import grade as grade_module
from autograde import notebooks
from autograde.normalise import normalise_submission

REPO = Path(__file__).resolve().parents[1]

ASSIGNMENT = "07_inference"  # the quickest set to grade (~5 s a student)
(SOURCE,) = notebooks.assignment_notebooks(ASSIGNMENT)
RELEASED = notebooks.EXERCISES / ASSIGNMENT / SOURCE.name


def honest() -> dict:
    return notebooks.make_submission(RELEASED, SOURCE)


def pasted_twice() -> dict:
    """An honest notebook in which the first solution cell was copied and pasted below itself (JupyterLab keeps the
    copy's metadata, grade_id included)."""
    notebook = honest()
    first = next(i for i, c in enumerate(notebook["cells"]) if notebooks.nbgrader_metadata(c).get("solution"))
    notebook["cells"].insert(first + 1, copy.deepcopy(notebook["cells"][first]))
    return notebook


def empty_metadata() -> dict:
    notebook = honest()
    notebook["cells"].append({"cell_type": "code", "execution_count": None, "metadata": {"nbgrader": {}},
                              "outputs": [], "source": "print('a cell whose nbgrader metadata is empty')"})
    return notebook


def normalised(tmp_path, notebook: dict) -> tuple[dict, list[str]]:
    src, dest = tmp_path / "in.ipynb", tmp_path / "out.ipynb"
    notebooks.write_notebook(notebook, src)
    corrections = normalise_submission(src, dest)
    return json.loads(dest.read_text()), corrections


def test_of_cells_sharing_a_grade_id_the_last_keeps_it_and_the_first_becomes_ordinary(tmp_path):
    notebook = pasted_twice()
    out, corrections = normalised(tmp_path, notebook)
    ids = [notebooks.grade_id(c) for c in out["cells"] if notebooks.grade_id(c)]
    assert len(ids) == len(set(ids)), "a grade_id is still repeated"
    (first,) = [i for i, (a, b) in enumerate(zip(notebook["cells"], out["cells"])) if a != b]
    assert "nbgrader" not in out["cells"][first]["metadata"]
    assert out["cells"][first]["source"] == notebook["cells"][first]["source"]  # it still runs as written
    kept = notebooks.nbgrader_metadata(out["cells"][first + 1])["grade_id"]
    assert kept == notebooks.grade_id(notebook["cells"][first])
    assert len(corrections) == 1 and "repeats grade_id" in corrections[0] and f"cell {first}:" in corrections[0]


@pytest.mark.parametrize("meta", [{}, "not a dict", {"grade": True, "solution": False, "locked": True,
                                                       "schema_version": 3, "points": 1}, {"schema_version": 99}])
def test_a_cell_whose_nbgrader_metadata_does_not_validate_becomes_ordinary(tmp_path, meta):
    notebook = honest()
    notebook["cells"].append({"cell_type": "code", "execution_count": None, "metadata": {"nbgrader": meta},
                              "outputs": [], "source": "x = 1"})
    out, corrections = normalised(tmp_path, notebook)
    assert "nbgrader" not in out["cells"][-1]["metadata"] and out["cells"][-1]["source"] == "x = 1"
    assert len(corrections) == 1 and "invalid" in corrections[0], corrections


def test_an_honest_notebook_is_left_as_it_is(tmp_path):
    notebook = honest()
    out, corrections = normalised(tmp_path, notebook)
    assert corrections == [] and out == json.loads(json.dumps(notebook))


def test_a_file_that_is_not_a_notebook_is_copied_unchanged(tmp_path):
    (tmp_path / "in.ipynb").write_text("{ not json")
    assert normalise_submission(tmp_path / "in.ipynb", tmp_path / "out.ipynb") == []
    assert (tmp_path / "out.ipynb").read_text() == "{ not json"


def grade_class(tmp_path, name: str, students: dict[str, dict]) -> dict[str, dict]:
    subs = tmp_path / name / "subs"
    for student, notebook in students.items():
        notebooks.write_notebook(notebook, subs / student / SOURCE.name)
    out = tmp_path / name / "out"
    grade_module.grade(ASSIGNMENT, subs, out, tmp_path / name / "work", jobs=1,
                       limits={"budget_s": 120.0, "cell_timeout_s": 30.0})
    with open(out / "grades.csv") as f:
        return {row["student_id"]: row for row in csv.DictReader(f)}


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap")
def test_a_pasted_cell_or_empty_metadata_costs_nobody_a_point(tmp_path):
    """Graded as one group (--jobs 1), the broken notebooks first: before, nbgrader stopped at the first of them
    and every later student was 'grading failed'. Now all score full marks, and the honest student's row is the
    one it gets in a class without them."""
    rows = grade_class(tmp_path, "mixed", {"a-pasted-twice": pasted_twice(), "b-empty-metadata": empty_metadata(),
                                           "c-honest": honest()})
    alone = grade_class(tmp_path, "alone", {"c-honest": honest()})
    assert {s: r["status"] for s, r in rows.items()} == dict.fromkeys(rows, "graded"), rows
    assert all(r["score"] == r["max_score"] for r in rows.values()), rows
    drop = {"seconds"}
    assert {k: v for k, v in rows["c-honest"].items() if k not in drop} == \
        {k: v for k, v in alone["c-honest"].items() if k not in drop}


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap")
def test_students_nbgrader_left_ungraded_are_graded_again_alone(tmp_path, monkeypatch):
    """Without the correction (copied as submitted), nbgrader still gives up on the group at the pasted cell: the
    student after it is graded by itself, and only the broken notebook fails."""
    monkeypatch.setattr(grade_module, "normalise_submission", lambda path, dest: shutil.copy(path, dest) and [])
    rows = grade_class(tmp_path, "uncorrected", {"a-pasted-twice": pasted_twice(), "c-honest": honest()})
    assert rows["a-pasted-twice"]["status"] == "grading failed", rows
    assert rows["c-honest"]["status"] == "graded" and rows["c-honest"]["score"] == rows["c-honest"]["max_score"]
    log = (tmp_path / "uncorrected" / "out" / "grading.log").read_text()
    assert "c-honest was not graded with its group: graded alone" in log
