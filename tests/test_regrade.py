"""What an instructor gets out of a run (issue 44.3, 44.5-44.7, 45.1, 45.6): a regrade of one student into the class's
results with the class's seed; results of another set or class never overwritten; a report that says why; grades
written whatever one student's row, name or page does; Ctrl-C that stops every sandbox and keeps the grades.

    pytest tests/test_regrade.py
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograde import grade as grade_module
from autograde import merge, notebooks
from autograde.report import class_report, write_csv, write_json
from distlab import notebook_source

REPO = Path(__file__).resolve().parents[1]
ASSIGNMENT = "07_inference"  # the set quickest to grade
(SOURCE,) = notebooks.assignment_notebooks(ASSIGNMENT)
RELEASED = notebooks.EXERCISES / ASSIGNMENT / SOURCE.name
CELLS = notebook_source.test_cells(SOURCE)


def a_report(students: dict, **extra) -> dict:
    return {"assignment": ASSIGNMENT, "cells": CELLS, "max_score": sum(CELLS.values()), "students": students,
            "shard": [0, 1], "gradebook_corrections": [], **extra}


def test_a_folder_name_that_is_not_utf8_gets_its_row_and_the_others_theirs(tmp_path):
    """Issue 45.1: os.listdir gives b'caf\\xe9' as 'caf\\udce9'; grades.csv had only its header, no grades.json."""
    name = os.fsdecode(b"caf\xe9")
    report = a_report({"alice": {"status": "graded", "score": 34.0, "max_score": 34.0, "cells": {}},
                       name: {"status": "invalid student id", "files": {},
                              "reason": grade_module.invalid_id_reason(name)}})
    write_csv(report, tmp_path / "grades.csv")
    write_json(report, tmp_path / "grades.json")
    with open(tmp_path / "grades.csv", encoding="utf-8") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    assert rows["alice"]["score"] == "34" and "caf\\xe9" in rows, rows
    assert "not UTF-8" in rows["caf\\xe9"]["flags"], rows
    assert "caf\\xe9" in json.loads((tmp_path / "grades.json").read_text())["students"]


def test_a_row_that_cannot_be_made_fails_that_student_alone(tmp_path):
    report = a_report({"alice": {"status": "graded", "score": 34.0, "max_score": 34.0, "cells": {}},
                       "bob": {"status": "graded", "score": "thirty", "max_score": 34.0, "cells": {}},
                       "carol": {"status": "graded", "score": 0.0, "max_score": 34.0, "cells": {}}})
    write_csv(report, tmp_path / "grades.csv")
    with open(tmp_path / "grades.csv") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    assert rows["alice"]["score"] == "34" and rows["carol"]["score"] == "0"
    assert rows["bob"]["status"] == "grading failed" and "report row failed" in rows["bob"]["flags"], rows["bob"]


def test_misnamed_files_and_invalid_ids_say_what_was_found(tmp_path):
    """Issue 44.6: `pipeline (1).ipynb` names the file found; `Alice Smith` says the space is the reason."""
    (tmp_path / "dave").mkdir()
    (tmp_path / "dave" / f"{SOURCE.stem} (1).ipynb").write_text("{}")
    (tmp_path / "erin").mkdir()
    students = {"dave": {"status": grade_module.NOT_SUBMITTED, "files": {}},
                "erin": {"status": grade_module.NOT_SUBMITTED, "files": {}},
                "Alice Smith": {"status": grade_module.INVALID_ID, "files": {}}}
    grade_module.explain_missing(students, tmp_path, ASSIGNMENT, [SOURCE.stem])
    assert f"'{SOURCE.stem} (1).ipynb'" in students["dave"]["reason"], students["dave"]
    assert "holds no notebook" in students["erin"]["reason"]
    assert "a space" in students["Alice Smith"]["reason"], students["Alice Smith"]
    text = class_report(a_report(students))
    assert "dave (not submitted): expected" in text and "(1).ipynb" in text, text


def test_the_class_report_counts_passes_per_test_and_flags_students():
    first, second = list(CELLS)[:2]
    students = {"alice": {"status": "graded", "tests": {first: {"passed": True}, second: {"passed": True}}},
                "bob": {"status": "graded", "cell_errors": 1, "first_cell_error": "ZeroDivisionError: division",
                        "tests": {first: {"passed": False, "timed_out": True, "sandbox_stopped": True},
                                  second: {"passed": True}}}}
    text = class_report(a_report(students))
    assert any(line.startswith(first) and line.endswith(" 1/2") for line in text.splitlines()), text
    assert any(line.startswith(second) and line.endswith(" 2/2") for line in text.splitlines()), text
    assert f"timed out: {first}" in text and "error in 1 of its own cell(s): ZeroDivisionError" in text, text


def test_results_of_another_set_or_class_are_not_overwritten(tmp_path):
    """Issue 44.3: the README's second set went to the same grading/ and replaced the first's grades."""
    out, subs = tmp_path / "out", tmp_path / "subs"
    out.mkdir()
    subs.mkdir()
    (out / "grades.json").write_text(json.dumps(a_report({}, assignment="05_pipeline")))
    with pytest.raises(grade_module.ResultsError, match="holds the grades of '05_pipeline'"):
        grade_module.checked_results(out, ASSIGNMENT, subs, None, (0, 1))
    (out / "grades.json").write_text(json.dumps(a_report({}, submissions=str(tmp_path / "other"), seed=5)))
    with pytest.raises(grade_module.ResultsError, match="another class"):
        grade_module.checked_results(out, ASSIGNMENT, subs, None, (0, 1))
    with pytest.raises(grade_module.ResultsError, match="has none"):
        grade_module.checked_results(tmp_path / "empty", ASSIGNMENT, subs, ["alice"], (0, 1))
    (out / "grades.json").write_text(json.dumps(a_report({}, submissions=str(subs.resolve()))))
    with pytest.raises(grade_module.ResultsError, match="records no seed"):
        grade_module.checked_results(out, ASSIGNMENT, subs, ["alice"], (0, 1))
    args = grade_module.make_parser().parse_args([ASSIGNMENT, str(subs)])
    assert args.out is None  # main() makes it grading/<assignment>/
    with pytest.raises(SystemExit):  # a usage error, before anything is graded
        grade_module.main([ASSIGNMENT, str(subs), "--out", str(tmp_path / "empty"), "--only", "alice",
                           "--work", str(tmp_path / "work"), "--unsafe-no-sandbox"])


def test_merging_an_earlier_merge_says_so(tmp_path):
    """Issue 44.7: `merge grading/shard-* grading/all` where a glob also matched the merged folder."""
    for k in (0, 1):
        (tmp_path / f"shard-{k}").mkdir()
        (tmp_path / f"shard-{k}" / "grades.json").write_text(json.dumps(a_report({}, shard=[k, 2], seed=7)))
    merged = merge.merge([tmp_path / "shard-0", tmp_path / "shard-1"], tmp_path / "shard-all")
    assert merged["seed"] == 7
    with pytest.raises(ValueError, match="is an earlier merge"):
        merge.merge([tmp_path / "shard-0", tmp_path / "shard-1", tmp_path / "shard-all"], tmp_path / "again")


def test_a_late_submission_is_flagged_and_the_rule_applied():
    due = grade_module.parse_due("2026-12-01 23:59 UTC")
    students = {"early": {"status": "graded", "score": 30.0, "max_score": 34.0, "submitted_at_s": due - 60},
                "late": {"status": "graded", "score": 30.0, "max_score": 34.0, "submitted_at_s": due + 3600},
                "none": {"status": "graded", "score": 30.0, "max_score": 34.0}}
    grade_module.mark_late(students, due, 0.1)
    assert students["early"]["late_s"] < 0 and students["early"]["score"] == 30.0
    assert students["late"]["score"] == pytest.approx(30.0 - 3.4)  # 0.1 x 34 for a started day
    assert students["late"]["score_before_late_penalty"] == 30
    assert "late_s" not in students["none"]


def test_ctrl_c_stops_every_nbgrader_it_started(tmp_path, monkeypatch):
    """Issue 44.7: Ctrl-C during `nbgrader autograde` left the other groups' processes (own sessions) running."""
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\necho $$ >> {tmp_path}/pids\necho started\nexec sleep 300\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake))
    groups = [grade_module.Group(tmp_path / f"group-{k}", [f"s{k}"]) for k in range(2)]
    for group in groups:
        group.folder.mkdir()
    (tmp_path / grade_module.SEED_FILE).write_text("1\n")

    def interrupt(text):
        if len((tmp_path / "pids").read_text().split()) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        grade_module.run_groups(["autograde", ASSIGNMENT], groups, tmp_path, timeout=60, progress=interrupt)
    for pid in map(int, (tmp_path / "pids").read_text().split()):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap")
def test_one_student_regraded_into_the_class_with_its_seed(tmp_path):
    """Issue 44.3 and 44.5, by the real command: a class of two; `--only alice` replaces alice's row and page with
    the same grade (the class's seed), carol's row and page stay byte for byte; progress lines; a report."""
    subs, out, work = tmp_path / "subs", tmp_path / "out", tmp_path / "work"
    notebook_source.write_notebook(notebooks.make_submission(RELEASED, SOURCE), subs / "alice" / SOURCE.name)
    notebook_source.write_notebook(notebook_source.read_notebook(RELEASED), subs / "carol" / SOURCE.name)
    (subs / "alice" / "timestamp.txt").write_text("2026-12-01 10:00:00.000000 UTC\n")
    os.makedirs(os.fsencode(subs) + b"/caf\xe9")  # as archive tools make (issue 45.1): its row, not a crash
    command = [sys.executable, "-m", "autograde.grade", ASSIGNMENT, str(subs), "--out", str(out), "--work", str(work),
               "--budget", "120", "--due", "2026-12-01 12:00 UTC"]
    env = {**os.environ, "DISTLAB_GRADING_JOBS": "1"}
    first = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600, env=env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "[1/2]" in first.stderr and "[2/2]" in first.stderr, first.stderr  # a line per student as it is graded
    assert "SAWarning" not in (out / "grading.log").read_text()
    before_csv = (out / "grades.csv").read_text().splitlines()
    before = json.loads((out / "grades.json").read_text())
    carol_page = (out / "feedback" / "carol" / f"{SOURCE.stem}.html").read_bytes()
    assert isinstance(before["seed"], int) and str(before["seed"]) not in carol_page.decode()
    assert "cdnjs" not in carol_page.decode() and b"../mathjax/MathJax.js" in carol_page
    assert (out / "feedback" / "mathjax" / "MathJax.js").exists()
    alice = before["students"]["alice"]
    assert alice["submitted_at"].startswith("2026-12-01T10:00") and alice["late_s"] < 0
    assert all(t["passed"] for t in alice["tests"].values()) and set(alice["tests"]) == set(CELLS), alice["tests"]
    assert not any(t["passed"] for t in before["students"]["carol"]["tests"].values())
    assert "caf\\xe9 (invalid student id): the folder name" in (out / "report.txt").read_text()
    assert any(line.startswith("caf\\xe9,invalid student id,") for line in before_csv), before_csv
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{work / 'gradebook.db'}") as gradebook:  # nbgrader collect's time, kept
        assert gradebook.find_submission(ASSIGNMENT, "alice").timestamp is not None

    again = subprocess.run([*command, "--only", "alice"], cwd=REPO, capture_output=True, text=True, timeout=600,
                           env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    after_csv = (out / "grades.csv").read_text().splitlines()
    after = json.loads((out / "grades.json").read_text())
    assert after_csv[0] == before_csv[0] and len(after_csv) == len(before_csv) == 4
    others = [line for line in before_csv[1:] if not line.startswith("alice,")]
    assert len(others) == 2 and all(line in after_csv for line in others)  # byte for byte
    assert (out / "feedback" / "carol" / f"{SOURCE.stem}.html").read_bytes() == carol_page
    assert after["seed"] == before["seed"] and (work / "regrade" / grade_module.SEED_FILE).read_text().strip() == str(
        before["seed"])
    assert after["students"]["carol"] == before["students"]["carol"]
    regraded = after["students"]["alice"]
    assert regraded["score"] == alice["score"] and regraded["cells"] == alice["cells"] and regraded["regraded_at"]
    assert (work / "gradebook.db").exists()  # the class's gradebook is kept


def test_a_time_bound_on_markdown_in_a_feedback_page():
    """Issue 45.6: one markdown cell of 60,000 nested <div> took 340 s (bleach); capped, nh3, a note on the page."""
    import nbformat
    import nbgrader
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    formgrader = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
    config = Config()
    config.HTMLExporter.template_name = "distlab_feedback"
    config.HTMLExporter.template_file = "distlab_feedback.html.j2"
    config.HTMLExporter.extra_template_basedirs = [str(formgrader / "templates"), str(REPO / "autograde" / "templates")]
    config.HTMLExporter.extra_template_paths = [str(formgrader / "static" / "node_modules" / "bootstrap" / "dist"
                                                     / "css")]
    config.HTMLExporter.filters = {"clean_student_html": "autograde.feedback_html.clean",
                                   "student_markdown": "autograde.feedback_html.student_markdown"}
    cells = [nbformat.v4.new_markdown_cell("# My notes <script>alert('pwned')</script>"),
             nbformat.v4.new_markdown_cell("<div>" * 60_000 + "x" + "</div>" * 60_000),
             nbformat.v4.new_markdown_cell("\\begin{x}" * 20_000)]
    started = time.monotonic()
    page, _ = HTMLExporter(config=config).from_notebook_node(
        nbformat.v4.new_notebook(cells=cells),
        resources={"nbgrader": {"notebook": "n", "score": 0, "max_score": 1, "late_penalty": 0}})
    assert time.monotonic() - started < 60  # 340 s with bleach, unbounded markdown
    assert "My notes" in page and "<script>alert('pwned')" not in page
    assert page.count("markdown is cut at 10,000 characters") == 2


def test_an_lms_export_has_a_row_per_student_and_a_column_per_set(tmp_path):
    """Issue 44.6: `python -m autograde.export` writes student_id and each set's total (empty: no grade)."""
    for assignment, students in [("05_pipeline", {"alice": {"status": "graded", "score": 20.5},
                                                  "bob": {"status": "not submitted"}}),
                                 (ASSIGNMENT, {"alice": {"status": "graded", "score": 34.0},
                                               "carol": {"status": "graded", "score": 0.0}})]:
        (tmp_path / assignment).mkdir()
        (tmp_path / assignment / "grades.json").write_text(json.dumps(
            a_report(students, assignment=assignment, max_score=34 if assignment == ASSIGNMENT else 28)))
    done = subprocess.run([sys.executable, "-m", "autograde.export", str(tmp_path / "05_pipeline"),
                           str(tmp_path / ASSIGNMENT), "--out", str(tmp_path / "lms.csv")], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "lms.csv").read_text().splitlines() == [
        f"student_id,05_pipeline (28),{ASSIGNMENT} (34)", "alice,20.5,34", "bob,,", "carol,,0"]


def test_an_lms_bulk_download_is_laid_out_a_folder_per_student(tmp_path):
    """Issue 44.6: a zip of <student>_<...>.ipynb (Canvas's naming) becomes <student>/<notebook>; nothing escapes."""
    import zipfile
    archive = tmp_path / "download.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(f"alice_123_456_{SOURCE.name}", "{}")
        zf.writestr(f"bob_124_457_{SOURCE.stem}-1.ipynb", "{}")  # a resubmission
        zf.writestr(f"carol_125_458_{SOURCE.stem} (1).ipynb", "{}")  # kept as named: the report names it
        zf.writestr("../../evil_1_x.ipynb", "{}")  # only the last name counts
        zf.writestr("readme.txt", "not a notebook")
    from autograde.unpack import unpack
    written = unpack(archive, ASSIGNMENT, tmp_path / "subs")
    assert (tmp_path / "subs" / "alice" / SOURCE.name).exists() and (tmp_path / "subs" / "bob" / SOURCE.name).exists()
    assert (tmp_path / "subs" / "carol" / f"carol_125_458_{SOURCE.stem} (1).ipynb").exists()
    assert (tmp_path / "subs" / "evil" / "evil_1_x.ipynb").exists() and not (tmp_path / "evil_1_x.ipynb").exists()
    assert sorted(s for s in written if s) == ["alice", "bob", "carol", "evil"]


def test_ctrl_c_while_grading_writes_the_grades_and_says_so(tmp_path, monkeypatch):
    """Issue 44.7: a raw traceback and no grades.csv; now every student not graded is 'grading failed: interrupted'."""
    subs = tmp_path / "subs"
    notebook_source.write_notebook(notebook_source.read_notebook(RELEASED), subs / "alice" / SOURCE.name)
    (subs / "bob").mkdir()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(grade_module, "autograde_groups", interrupted)
    report = grade_module.grade(ASSIGNMENT, subs, tmp_path / "out", tmp_path / "work", limits={"sandbox": False})
    assert report["interrupted"] and grade_module.tell_outcome(report, tmp_path / "out") == 130
    with open(tmp_path / "out" / "grades.csv") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    assert rows["alice"]["status"] == "grading failed" and "interrupted" in rows["alice"]["flags"], rows
    assert rows["bob"]["status"] == "not submitted"
    assert not (tmp_path / "out" / "feedback").exists()


def test_a_fallback_page_shows_scores_and_outputs_escaped():
    from autograde.feedback_html import fallback_page
    cell = {"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "grade_id": "t1", "points": 2}},
            "outputs": [{"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["<img onerror=x>"]}]}
    page = fallback_page({"cells": [cell]}, "n <b>", "too long", {"t1": 0.0})
    assert "<img" not in page and "&lt;img onerror=x&gt;" in page and "(Score: 0.0 / 2)" in page


def test_a_page_nbgrader_did_not_make_in_time_is_a_fallback_page(tmp_path):
    """Issue 45.6: a page past generate_feedback's time bound is the escaped page; the other student's page is kept."""
    group = grade_module.Group(tmp_path / "work", ["alice", "bob"])
    for student in group.students:
        graded = group.folder / "autograded" / student / ASSIGNMENT / SOURCE.name
        graded.parent.mkdir(parents=True)
        graded.write_text(json.dumps(notebook_source.read_notebook(RELEASED)))
    page = group.folder / "feedback" / "alice" / ASSIGNMENT / f"{SOURCE.stem}.html"
    page.parent.mkdir(parents=True)
    page.write_text('<script src="https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js?config=x"> </script>')
    students = {s: {"status": "graded", "files": {SOURCE.stem: "x"}, "score": 0.0, "max_score": 34.0, "cells": {}}
                for s in group.students}
    grade_module.copy_feedback(students, [group], ASSIGNMENT, tmp_path / "out", fallback=True)
    alice = (tmp_path / "out" / "feedback" / "alice" / f"{SOURCE.stem}.html").read_text()
    assert "cdnjs" not in alice and 'src="../mathjax/MathJax.js' in alice
    bob = (tmp_path / "out" / "feedback" / "bob" / f"{SOURCE.stem}.html").read_text()
    assert "took too long" in bob and students["bob"]["feedback"].startswith("plain")
