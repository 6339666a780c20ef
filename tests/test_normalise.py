"""One student's notebook never stops another's grading: what nbgrader would refuse is corrected before it sees the
class (autograde/normalise.py), what cannot be corrected fails that student alone with the reason (a link, JSON
nested 100,000 deep, a folder over its limit: grade.collect, normalise, integrity.tree_hashes), and whoever nbgrader
still leaves ungraded is graded again alone (grade.py).

    pytest tests/test_normalise.py
"""
from __future__ import annotations

import copy
import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograde import grade as grade_module
from autograde import notebooks
from autograde.integrity import compare_hashes, tree_hashes
from autograde.normalise import MAX_DEPTH, Refused, normalise_submission
from distlab import notebook_source

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
    first = next(i for i, c in enumerate(notebook["cells"]) if notebook_source.nbgrader_metadata(c).get("solution"))
    notebook["cells"].insert(first + 1, copy.deepcopy(notebook["cells"][first]))
    return notebook


def empty_metadata() -> dict:
    notebook = honest()
    notebook["cells"].append({"cell_type": "code", "execution_count": None, "metadata": {"nbgrader": {}},
                              "outputs": [], "source": "print('a cell whose nbgrader metadata is empty')"})
    return notebook


def normalised(tmp_path, notebook: dict, source: Path | None = None) -> tuple[dict, list[str]]:
    src, dest = tmp_path / "in.ipynb", tmp_path / "out.ipynb"
    write(notebook, src)
    corrections = normalise_submission(src, dest, source)
    return json.loads(dest.read_text(encoding="utf-8")), corrections


def write(notebook: dict, path: Path) -> None:
    """As an editor saves it, but with non-ASCII escaped: a lone surrogate is written as \\ud83d."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notebook, indent=1))


def nested(depth: int) -> dict:
    value = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def deep_metadata(depth: int = 100_000) -> str:
    """An honest notebook whose first cell's metadata nests `depth` deep (valid JSON; written without recursion)."""
    notebook = honest()
    notebook["cells"][0]["metadata"]["deep"] = "DEEP"
    return json.dumps(notebook).replace('"DEEP"', '{"a": ' * (depth - 1) + "{}" + "}" * (depth - 1))


def lone_surrogate() -> dict:
    """An honest notebook with a markdown cell holding half an emoji (\\ud83d, which editors produce)."""
    notebook = honest()
    notebook["cells"].append({"cell_type": "markdown", "id": "half-an-emoji", "metadata": {},
                              "source": "my notes \ud83d on the cost model"})
    return notebook


def cell_of(notebook: dict, grade_id: str) -> dict:
    return next(c for c in notebook["cells"] if notebook_source.grade_id(c) == grade_id)


def markdown_test_cell() -> dict:
    """An honest notebook in which a test cell was turned into markdown (a key press in JupyterLab)."""
    notebook = honest()
    first_test = next(iter(notebook_source.test_cells(SOURCE)))
    cell = cell_of(notebook, first_test)
    cell["cell_type"] = "markdown"
    del cell["outputs"], cell["execution_count"]
    return notebook


def solution_claiming_points() -> dict:
    """An honest notebook whose first solution cell's metadata claims `grade: true, points: 100`."""
    notebook = honest()
    first_solution = next(iter(notebook_source.solution_cells(SOURCE)))
    cell_of(notebook, first_solution)["metadata"]["nbgrader"].update(grade=True, points=100)
    return notebook


def test_of_cells_sharing_a_grade_id_the_last_keeps_it_and_the_first_becomes_ordinary(tmp_path):
    notebook = pasted_twice()
    out, corrections = normalised(tmp_path, notebook)
    ids = [notebook_source.grade_id(c) for c in out["cells"] if notebook_source.grade_id(c)]
    assert len(ids) == len(set(ids)), "a grade_id is still repeated"
    (first,) = [i for i, (a, b) in enumerate(zip(notebook["cells"], out["cells"])) if a != b]
    assert "nbgrader" not in out["cells"][first]["metadata"]
    assert out["cells"][first]["source"] == notebook["cells"][first]["source"]  # it still runs as written
    kept = notebook_source.nbgrader_metadata(out["cells"][first + 1])["grade_id"]
    assert kept == notebook_source.grade_id(notebook["cells"][first])
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


def test_a_file_that_is_not_json_is_refused_with_the_parse_error(tmp_path):
    (tmp_path / "in.ipynb").write_text("{ not json")
    with pytest.raises(Refused, match="not a notebook: its JSON does not parse .*line 1 column 3"):
        normalise_submission(tmp_path / "in.ipynb", tmp_path / "out.ipynb")


@pytest.mark.parametrize("depth", [100_000, MAX_DEPTH + 1])
def test_json_nested_too_deep_is_refused_naming_the_nesting(tmp_path, depth):
    """100,000 deep raised RecursionError out of normalise (the whole class unGraded); a depth json reads but
    nbformat's recursion would not (800) is refused at MAX_DEPTH."""
    (tmp_path / "in.ipynb").write_text(deep_metadata(depth))
    with pytest.raises(Refused, match=f"nests deeper than {MAX_DEPTH} levels"):
        normalise_submission(tmp_path / "in.ipynb", tmp_path / "out.ipynb")


def test_metadata_nested_a_little_is_kept(tmp_path):
    notebook = honest()
    notebook["metadata"]["widgets"] = nested(20)
    out, corrections = normalised(tmp_path, notebook, SOURCE)
    assert corrections == [] and out == json.loads(json.dumps(notebook))


def test_a_lone_surrogate_becomes_a_replacement_character_and_is_reported(tmp_path):
    notebook = lone_surrogate()
    out, corrections = normalised(tmp_path, notebook, SOURCE)  # json writes \ud83d escaped; the notebook has it raw
    assert out["cells"][-1]["source"] == "my notes \ufffd on the cost model"
    assert corrections == [f"cell {len(out['cells']) - 1}: a lone surrogate (half of a character such as an emoji) "
                           f"replaced by U+FFFD"]
    assert out["cells"][:-1] == json.loads(json.dumps(notebook))["cells"][:-1]


def test_a_utf8_byte_order_mark_is_read(tmp_path):
    notebook = honest()
    (tmp_path / "in.ipynb").write_bytes(b"\xef\xbb\xbf" + json.dumps(notebook).encode())
    assert normalise_submission(tmp_path / "in.ipynb", tmp_path / "out.ipynb", SOURCE) == []
    assert not (tmp_path / "out.ipynb").read_bytes().startswith(b"\xef\xbb\xbf")
    assert json.loads((tmp_path / "out.ipynb").read_text(encoding="utf-8")) == json.loads(json.dumps(notebook))


def test_a_test_cell_turned_into_markdown_gets_its_type_and_metadata_back(tmp_path):
    """Without the source, normalise made it an ordinary cell (its metadata does not validate as markdown) before
    nbgrader could restore it: -2 points for a key press."""
    out, corrections = normalised(tmp_path, markdown_test_cell(), SOURCE)
    assert out == json.loads(json.dumps(honest()))
    first_test = next(iter(notebook_source.test_cells(SOURCE)))
    assert len(corrections) == 1 and f"cell type ('markdown' for 'code') of {first_test!r}" in corrections[0]


def test_a_solution_cell_claiming_grade_and_points_gets_the_sources_metadata(tmp_path):
    """nbgrader looked its grade_id up among the graded cells: MissingEntry, 'grading failed'."""
    out, corrections = normalised(tmp_path, solution_claiming_points(), SOURCE)
    assert out == json.loads(json.dumps(honest()))
    first_solution = next(iter(notebook_source.solution_cells(SOURCE)))
    index = next(i for i, c in enumerate(out["cells"]) if notebook_source.grade_id(c) == first_solution)
    assert corrections == [f"cell {index}: nbgrader metadata of {first_solution!r} restored from the assignment"]


def test_a_graded_cell_the_assignment_does_not_have_becomes_ordinary(tmp_path):
    notebook = honest()
    notebook["cells"].append({"cell_type": "code", "execution_count": None, "id": "extra", "outputs": [],
                              "source": "x = 1", "metadata": {"nbgrader": {
                                  "grade": True, "grade_id": "free_points", "locked": False, "points": 100,
                                  "schema_version": 3, "solution": False, "task": False}}})
    out, corrections = normalised(tmp_path, notebook, SOURCE)
    assert "nbgrader" not in out["cells"][-1]["metadata"] and out["cells"][-1]["source"] == "x = 1"
    assert corrections == [f"cell {len(out['cells']) - 1}: an ordinary cell now: the assignment has no grade_id "
                           f"'free_points'"]


def test_a_notebook_that_is_a_symbolic_link_is_not_read(tmp_path):
    notebook_source.write_notebook(honest(), tmp_path / "classmate.ipynb")
    (tmp_path / "in.ipynb").symlink_to(tmp_path / "classmate.ipynb")
    with pytest.raises(Refused, match="symbolic link"):
        normalise_submission(tmp_path / "in.ipynb", tmp_path / "out.ipynb", SOURCE)


# --- collecting the submissions: grade.collect --------------------------------------------------------------------

def class_folder(tmp_path) -> Path:
    """Two honest students, one in nbgrader's layout."""
    subs = tmp_path / "subs"
    notebook_source.write_notebook(honest(), subs / "alice" / SOURCE.name)
    notebook_source.write_notebook(honest(), subs / "bob" / ASSIGNMENT / SOURCE.name)
    return subs


def collected(subs: Path) -> dict:
    return grade_module.collect(subs, ASSIGNMENT, [SOURCE.stem])


def sparse(path: Path, size: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(size)


REFUSED_FOLDERS = {  # student: (what its folder holds, what its reason must say)
    "link-to-classmate": (lambda d: (d / SOURCE.name).symlink_to(f"../alice/{SOURCE.name}"), "is a symbolic link"),
    "link-to-solutions": (lambda d: (d / SOURCE.name).symlink_to(f"/proc/self/cwd/solutions/{ASSIGNMENT}/"
                                                                 f"{SOURCE.name}"), "/proc/self/cwd/solutions"),
    "linked-layout": (lambda d: (d / ASSIGNMENT).symlink_to("../bob/" + ASSIGNMENT), "is a symbolic link"),
    "link-beside": (lambda d: (d / "data").symlink_to("/etc"), "'data' is a symbolic link (to '/etc')"),
    "fifo-beside": (lambda d: os.mkfifo(d / "checkpoint.pt"), "is not a file or a folder"),
    "too-many-bytes": (lambda d: sparse(d / "checkpoints" / "step-9.pt", grade_module.SUBMISSION_BYTES + 1),
                       "more than 1 GiB"),
    "too-many-files": (lambda d: [(d / f"f{i}").touch() for i in range(grade_module.SUBMISSION_ENTRIES + 1)],
                       "more than 50 files and folders"),  # SUBMISSION_ENTRIES (10,000) made 50 for the test
}


def test_a_folder_with_a_link_a_fifo_or_too_much_is_refused_alone_with_the_reason(tmp_path, monkeypatch):
    """Before: a link to a classmate's notebook or to the solutions was followed and scored full marks, and the
    grader read a 1 GiB file whole (twice, to hash it). Now each such student is refused, naming the problem, and
    nothing of its folder is read; the honest students are collected as in a class without them."""
    monkeypatch.setattr(grade_module, "SUBMISSION_ENTRIES", 50)
    subs = class_folder(tmp_path)
    alone = collected(subs)
    for student, (make, _) in REFUSED_FOLDERS.items():
        (subs / student).mkdir()
        notebook_source.write_notebook(honest(), subs / student / "honest-copy" / SOURCE.name)
        make(subs / student)
    (subs / "linked-student").symlink_to("alice")
    students = collected(subs)
    for student, (_, reason) in {**REFUSED_FOLDERS, "linked-student": (None, "the folder is a symbolic link")}.items():
        assert students[student]["status"] == "grading failed" and students[student]["files"] == {}, student
        assert reason in students[student]["reason"], (student, students[student]["reason"])
    assert {s: students[s] for s in alone} == alone
    assert {s: i["status"] for s, i in alone.items()} == {"alice": "submitted", "bob": "submitted"}


def test_a_folder_at_the_limits_is_collected(tmp_path):
    subs = class_folder(tmp_path)
    sparse(subs / "alice" / "checkpoint.pt", grade_module.SUBMISSION_BYTES - 2**20)
    assert collected(subs)["alice"]["status"] == "submitted"


def test_hand_in_refuses_a_notebook_normalise_cannot_read_and_hands_in_the_others(tmp_path):
    subs = tmp_path / "subs"
    (subs / "deep").mkdir(parents=True)
    (subs / "deep" / SOURCE.name).write_text(deep_metadata())
    write(lone_surrogate(), subs / "emoji" / SOURCE.name)
    notebook_source.write_notebook(honest(), subs / "honest" / SOURCE.name)
    students = collected(subs)
    group = grade_module.Group(tmp_path / "work", list(students))
    grade_module.hand_in(students, [group], ASSIGNMENT)
    assert group.students == ["emoji", "honest"]
    assert students["deep"]["status"] == "grading failed"
    assert students["deep"]["reason"] == f"{SOURCE.name}: its JSON nests deeper than {MAX_DEPTH} levels"
    assert not (tmp_path / "work" / "submitted" / "deep").exists()
    assert students["honest"]["corrections"] == [] and "U+FFFD" in students["emoji"]["corrections"][0]


# --- hashing: integrity.tree_hashes --------------------------------------------------------------------------------

def test_tree_hashes_follow_no_link(tmp_path):
    """A link is recorded by the name it points to: what it points to is never read (before, a link to a file
    outside was read, and its change was blamed on grading)."""
    (tmp_path / "root").mkdir()
    (tmp_path / "outside.txt").write_text("before")
    (tmp_path / "root" / "link").symlink_to(tmp_path / "outside.txt")
    os.mkfifo(tmp_path / "root" / "fifo")
    before = tree_hashes([tmp_path / "root"], skip=[])
    (tmp_path / "outside.txt").write_text("after")
    assert compare_hashes(before, tree_hashes([tmp_path / "root"], skip=[])) == []
    assert before[str((tmp_path / "root").resolve() / "link")].startswith("symbolic link to ")


def test_tree_hashes_read_a_large_file_in_chunks(tmp_path):
    """A 128 MiB (sparse) file: hashed in a fresh process whose peak memory grows by less than 48 MiB (before:
    read whole, +128 MiB; a 3 GB file beside a notebook took the grader to 3,246 MB)."""
    size = 128 * 2**20
    sparse(tmp_path / "root" / "checkpoint.pt", size)
    code = ("import resource, sys; from pathlib import Path; from autograde.integrity import tree_hashes; "
            "start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
            "hashes = tree_hashes([Path(sys.argv[1])], skip=[]); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - start, *hashes.values())")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    grown_kib, digest = subprocess.run([sys.executable, "-c", code, str(tmp_path / "root")], capture_output=True,
                                       text=True, check=True, env=env, cwd=REPO).stdout.split()
    expected = hashlib.sha256()
    for _ in range(size // 2**20):
        expected.update(bytes(2**20))
    assert digest == expected.hexdigest()
    assert int(grown_kib) < 48 * 1024, f"hashing a {size >> 20} MiB file grew the process by {grown_kib} KiB"


def grade_class(tmp_path, name: str, students: dict) -> dict[str, dict]:
    """Grade one group (--jobs 1); each student a notebook, or a function that fills its folder. The CSV's rows, each
    with grades.json's `reason` and `corrections` added."""
    subs = tmp_path / name / "subs"
    for student, notebook in students.items():
        if callable(notebook):
            (subs / student).mkdir(parents=True)
            notebook(subs / student)
        else:
            write(notebook, subs / student / SOURCE.name)
    out = tmp_path / name / "out"
    grade_module.grade(ASSIGNMENT, subs, out, tmp_path / name / "work", jobs=1,
                       limits={"budget_s": 120.0, "cell_timeout_s": 30.0})
    report = json.loads((out / "grades.json").read_text())["students"]
    with open(out / "grades.csv") as f:
        return {row["student_id"]: {**row, "reason": report[row["student_id"]].get("reason"),
                                    "corrections": report[row["student_id"]].get("corrections", [])}
                for row in csv.DictReader(f)}


def honest_mistakes(folder: Path) -> None:
    """Every honest mistake at once (each is a unit test above; one grading is ~5 s): a test cell made markdown, a
    solution cell claiming 100 points, half an emoji, saved with a UTF-8 byte-order mark."""
    notebook = markdown_test_cell()
    first_solution = next(iter(notebook_source.solution_cells(SOURCE)))
    cell_of(notebook, first_solution)["metadata"]["nbgrader"].update(grade=True, points=100)
    notebook["cells"].append(lone_surrogate()["cells"][-1])
    (folder / SOURCE.name).write_bytes(b"\xef\xbb\xbf" + json.dumps(notebook).encode())


REFUSED = {  # refused alone, with the reason
    "f-deep-metadata": (lambda d: (d / SOURCE.name).write_text(deep_metadata()), "nests deeper than"),
    "e-link-to-classmate": (lambda d: (d / SOURCE.name).symlink_to(f"../c-honest/{SOURCE.name}"),
                            "is a symbolic link (to '../c-honest/"),
}


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap")
def test_a_pasted_cell_or_empty_metadata_costs_nobody_a_point(tmp_path):
    """Graded as one group (--jobs 1), the broken notebooks first: before, nbgrader stopped at the first of them
    and every later student was 'grading failed'; a notebook nested 100,000 deep or with half an emoji stopped
    grade.py itself; a byte-order mark, a test cell made markdown, a solution cell claiming 100 points cost their
    student the grade or 2 points; a link to a classmate's notebook scored full marks. Now the honest mistakes score
    full marks, the refused students fail alone with the reason, and the honest student's row is the one it gets
    in a class without them."""
    rows = grade_class(tmp_path, "mixed", {"a-pasted-twice": pasted_twice(), "b-empty-metadata": empty_metadata(),
                                           "c-honest": honest(), "d-honest-mistakes": honest_mistakes,
                                           **{s: make for s, (make, _) in REFUSED.items()}})
    alone = grade_class(tmp_path, "alone", {"c-honest": honest()})
    for student, (_, reason) in REFUSED.items():
        assert rows[student]["status"] == "grading failed" and reason in rows[student]["reason"], rows[student]
    graded = {s: r for s, r in rows.items() if s not in REFUSED}
    assert {s: r["status"] for s, r in graded.items()} == dict.fromkeys(graded, "graded"), rows
    assert all(r["score"] == r["max_score"] for r in graded.values()), graded
    assert len(rows["d-honest-mistakes"]["corrections"]) == 3, rows["d-honest-mistakes"]
    drop = {"seconds"}
    assert {k: v for k, v in rows["c-honest"].items() if k not in drop} == \
        {k: v for k, v in alone["c-honest"].items() if k not in drop}


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap")
def test_students_nbgrader_left_ungraded_are_graded_again_alone(tmp_path, monkeypatch):
    """Without the correction (copied as submitted), nbgrader still gives up on the group at the pasted cell: the
    student after it is graded by itself, and only the broken notebook fails."""
    monkeypatch.setattr(grade_module, "normalise_submission", lambda path, dest, source: shutil.copy(path, dest) and [])
    rows = grade_class(tmp_path, "uncorrected", {"a-pasted-twice": pasted_twice(), "c-honest": honest()})
    assert rows["a-pasted-twice"]["status"] == "grading failed", rows
    assert rows["c-honest"]["status"] == "graded" and rows["c-honest"]["score"] == rows["c-honest"]["max_score"]
    log = (tmp_path / "uncorrected" / "out" / "grading.log").read_text()
    assert "c-honest was not graded with its group: graded alone" in log
