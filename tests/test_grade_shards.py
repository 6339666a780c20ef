"""A class graded as a job array (autograde/slurm/grade_array.sbatch, run here with bash) and merged
(autograde/merge.py) gets the same grades as one run of grade.py.

    pytest tests/test_grade_shards.py
"""
from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from autograde import notebooks  # noqa: E402

pytestmark = pytest.mark.xdist_group("nbgrader")
ASSIGNMENT = "01_data_parallelism"
SHARDS = 2


def write_class(folder: Path) -> None:
    (source,) = notebooks.assignment_notebooks(ASSIGNMENT)
    released = notebooks.EXERCISES / ASSIGNMENT / source.name
    mutant = (REPO / "tests" / "mutants" / ASSIGNMENT / "cost_missing_factor_two.py").read_text()
    students = {"alice": {}, "bob": {"ring_all_reduce_cost": mutant}}
    for student, replacements in students.items():
        notebooks.write_notebook(notebooks.make_submission(released, source, replacements), folder / student / source.name)
    notebooks.write_notebook(notebooks.read_notebook(released), folder / "carol" / source.name)  # left blank


def grades(path: Path) -> dict:
    with open(path, newline="") as f:
        return {row["student_id"]: {k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(f)}


def test_shards_merged_equal_one_run(tmp_path):
    write_class(tmp_path / "submissions")
    env = {k: v for k, v in os.environ.items() if k != "PATH"} | {"PATH": "/usr/bin:/bin",
                                                                   "DISTLAB_PYTHON": sys.executable, "TMPDIR": str(tmp_path)}
    one = subprocess.run([sys.executable, "autograde/grade.py", ASSIGNMENT, str(tmp_path / "submissions"), "--out",
                          str(tmp_path / "one"), "--work", str(tmp_path / "one-work")], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=600)
    assert one.returncode == 0, one.stdout + one.stderr
    for task in range(SHARDS):
        part = subprocess.run(["bash", "autograde/slurm/grade_array.sbatch", ASSIGNMENT, str(tmp_path / "submissions"),
                               str(tmp_path / "array")], cwd=REPO, capture_output=True, text=True, timeout=600,
                              env=env | {"SLURM_ARRAY_TASK_ID": str(task), "SLURM_ARRAY_TASK_COUNT": str(SHARDS)})
        assert part.returncode == 0, part.stdout + part.stderr
    shards = sorted(str(p) for p in (tmp_path / "array").glob("shard-*"))
    merged = subprocess.run([sys.executable, "autograde/merge.py", *shards, "--out", str(tmp_path / "merged")],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    expected = grades(tmp_path / "one" / "grades.csv")
    assert grades(tmp_path / "merged" / "grades.csv") == expected
    assert expected["alice"]["score"] == expected["alice"]["max_score"] and expected["carol"]["score"] == "0"
    assert float(expected["bob"]["score"]) < float(expected["bob"]["max_score"])
    for student in expected:
        assert (tmp_path / "merged" / "feedback" / student / "data_parallelism.html").exists(), student


def test_merge_refuses_a_missing_shard(tmp_path):
    sys.path.insert(0, str(REPO / "autograde"))
    from autograde import merge
    import json
    for k in (0, 2):
        (tmp_path / f"s{k}").mkdir()
        (tmp_path / f"s{k}" / "grades.json").write_text(json.dumps(
            {"assignment": ASSIGNMENT, "shard": [k, 3], "students": {}, "cells": {}, "max_score": 20}))
    with pytest.raises(ValueError, match="shards"):
        merge.merge([tmp_path / "s0", tmp_path / "s2"], tmp_path / "out")
