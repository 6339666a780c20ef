"""A class graded as a job array (autograde/slurm/grade_array.sbatch, run here with bash) and merged
(autograde/merge.py) gets the grades one run of grade.py gives: the solution full marks on every cell, a mutant
exactly the points its header says it loses, a blank notebook zero; one row and one feedback page per student.
(Not compared with an actual single run: that would grade the class twice, ~2 min of CI, for the same facts.)

    pytest tests/test_grade_shards.py
"""
from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _mutants import mutant_source

from autograde import notebooks, sets
from autograde.grade import SANDBOXED as SANDBOX
from autograde.report import COLUMNS
from distlab import notebook_source

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.xdist_group("nbgrader")
ASSIGNMENT = "07_inference"  # the set quickest to grade (~5 s a student; set 01's ring launches take ~30 s)
SHARDS = 2
MUTANT, MUTANT_LOSES = "best_no_validation", "best_config_rejects_bad_input"  # bob's answer, and the cell it loses


def write_class(folder: Path) -> None:
    (source,) = notebooks.assignment_notebooks(ASSIGNMENT)
    released = notebooks.EXERCISES / ASSIGNMENT / source.name
    mutant = mutant_source(sets.get(ASSIGNMENT).folder / "mutants" / f"{MUTANT}.py")  # the file, or its edit applied
    students = {"alice": {}, "bob": {"best_config": mutant}}
    for student, replacements in students.items():
        submission = notebooks.make_submission(released, source, replacements)
        notebook_source.write_notebook(submission, folder / student / source.name)
    notebook_source.write_notebook(notebook_source.read_notebook(released), folder / "carol" / source.name)  # blank


def grades(path: Path) -> dict:
    with open(path, newline="") as f:
        return {row["student_id"]: {k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(f)}


def test_shards_merged_give_each_student_the_grades_of_one_run(tmp_path):
    write_class(tmp_path / "submissions")
    env = {k: v for k, v in os.environ.items() if k != "PATH"} | {"PATH": "/usr/bin:/bin",
                                                                   "DISTLAB_PYTHON": sys.executable, "TMPDIR": str(tmp_path)}
    for task in range(SHARDS):
        part = subprocess.run(["bash", "autograde/slurm/grade_array.sbatch", ASSIGNMENT, str(tmp_path / "submissions"),
                               str(tmp_path / "array")], cwd=REPO, capture_output=True, text=True, timeout=600,
                              env=env | {"SLURM_ARRAY_TASK_ID": str(task), "SLURM_ARRAY_TASK_COUNT": str(SHARDS)})
        assert part.returncode == 0, part.stdout + part.stderr
    shards = sorted(str(p) for p in (tmp_path / "array").glob("shard-*"))
    assert len(shards) == SHARDS
    merged = subprocess.run([sys.executable, "-m", "autograde.merge", *shards, "--out", str(tmp_path / "merged")],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    got = grades(tmp_path / "merged" / "grades.csv")
    cells = notebook_source.test_cells(notebooks.assignment_notebooks(ASSIGNMENT)[0])  # {grade_id: points}
    assert set(got) == {"alice", "bob", "carol"}
    columns = list(next(iter(got.values())))
    fixed = [c for c in COLUMNS if c != "seconds"]
    assert columns[:len(fixed)] == fixed and set(columns[len(fixed):]) == set(cells)  # a column per test
    for row in got.values():
        assert float(row["max_score"]) == sum(cells.values()) and row["sandbox"] == SANDBOX, row
    assert all(float(got["alice"][c]) == points for c, points in cells.items()), got["alice"]
    assert float(got["alice"]["score"]) == sum(cells.values())
    assert float(got["bob"][MUTANT_LOSES]) < cells[MUTANT_LOSES], got["bob"]  # the cell its header names...
    assert all(float(got["bob"][c]) == points for c, points in cells.items() if c != MUTANT_LOSES), got["bob"]  # only
    assert float(got["carol"]["score"]) == 0 and all(float(got["carol"][c]) == 0 for c in cells), got["carol"]
    for student in got:
        page = notebooks.assignment_notebooks(ASSIGNMENT)[0].with_suffix(".html").name
        assert (tmp_path / "merged" / "feedback" / student / page).exists(), student


def test_merge_refuses_a_missing_shard(tmp_path):
    from autograde import merge
    import json
    for k in (0, 2):
        (tmp_path / f"s{k}").mkdir()
        (tmp_path / f"s{k}" / "grades.json").write_text(json.dumps(
            {"assignment": ASSIGNMENT, "shard": [k, 3], "students": {}, "cells": {}, "max_score": 20}))
    with pytest.raises(ValueError, match="shards"):
        merge.merge([tmp_path / "s0", tmp_path / "s2"], tmp_path / "out")
