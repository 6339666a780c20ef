"""The student edition (`python -m autograde.student_edition OUT`): nothing an answer can be read from, and it works.

    pytest tests/test_student_edition.py

Built once into a temporary folder; then no solution cell's source (`solution_source`, whitespace aside), no file of
the trusted checks, variants or mutants, is in any of its files; `./course test` there runs an exercise notebook's
visible self-checks (nbgrader validate) and `./course lab` serves the lessons with nbgrader's tools hidden. The
edition's `./course` runs in a stand-in for this environment (its folders linked, the install stamp set), so that
nothing is installed.
"""
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from _course import course_env, running_lab

from autograde import notebooks, student_edition
from distlab import notebook_source

ROOT = Path(__file__).resolve().parents[1]
WITHHELD = ["autograde/sets"]  # each set's checks, rank code, statement stand-ins, mutants, variants, attacks


def normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def edition_texts(edition: Path) -> dict[Path, str]:
    return {path: normal(student_edition.readable_text(path)) for path in sorted(edition.rglob("*"))
            if path.is_file() and ".git" not in path.parts}


def answers_in(edition: Path) -> list[str]:
    """Each solution cell (its source without the marker lines) and each withheld file found in `edition`'s files."""
    texts = edition_texts(edition)
    found = []
    for notebook in sorted(notebooks.SOLUTIONS.glob("*/*.ipynb")):
        for grade_id in notebook_source.solution_cells(notebook):
            source = normal(notebook_source.solution_source(notebook, grade_id))
            found += [f"{path.relative_to(edition)}: solution {grade_id}" for path, text in texts.items()
                      if source in text]
    for name in WITHHELD:
        for withheld in sorted((ROOT / name).rglob("*.py")):
            source = normal(withheld.read_text())
            same_name = withheld.name if not withheld.name.startswith("_") else None  # not __init__.py
            found += [f"{path.relative_to(edition)}: {withheld.relative_to(ROOT)}" for path, text in texts.items()
                      if path.name == same_name or len(source) > 200 and source in text]
    return found


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    out = tmp_path_factory.mktemp("student") / "distributed-ai"
    built = subprocess.run([sys.executable, "-m", "autograde.student_edition", str(out), "--zip", "--git"],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    return out


@pytest.fixture(scope="module")
def env(edition, tmp_path_factory):
    """`./course` of the edition in this environment (nothing installed), the edition's distlab first on the path."""
    return course_env(tmp_path_factory.mktemp("venv"), edition, PYTHONPATH=str(edition / "src"))


def test_the_edition_holds_the_course_and_no_answer(edition):
    files = {path.relative_to(edition).as_posix() for path in edition.rglob("*")
             if path.is_file() and ".git" not in path.parts}
    for released in notebooks.EXERCISES.glob("*/*.ipynb"):
        assert released.relative_to(ROOT).as_posix() in files
    assert {"course", "README.md", "pyproject.toml", "environment.yml", "src/distlab/__init__.py",
            "lessons/01_data_parallelism.ipynb", "lessons/scripts/01_train_ddp.py",
            "labconfig/learner/page_config.json"} <= files
    assert not [name for name in files if name.split("/")[0] in {"solutions", "autograde", "tests", "benchmarks"}]
    assert answers_in(edition) == []
    assert student_edition.leaks(edition) == []
    with zipfile.ZipFile(edition.parent / "distributed-ai.zip") as archive:
        assert {name.split("/", 1)[1] for name in archive.namelist() if not name.endswith("/")} == files
    tracked = subprocess.run(["git", "-C", str(edition), "ls-files"], capture_output=True, text=True).stdout.split()
    assert set(tracked) == files
    readme = (edition / "README.md").read_text()
    assert "./course lab" in readme and "./course test" in readme and "autograde" not in readme


def test_a_planted_answer_is_found_and_the_command_refuses_it(edition, tmp_path):
    """The checks above can fail: a solution cell pasted into a lesson script, a check module under another name."""
    planted = tmp_path / "planted"
    student_edition.build(planted)
    solution = notebook_source.solution_source(ROOT / "solutions/02_sharding/sharding.ipynb", "Zero2Optimizer")
    (planted / "lessons/scripts/helper.py").write_text(solution)
    (planted / "src/distlab/extra.py").write_text((ROOT / "autograde/sets/05_pipeline/checks.py").read_text())
    assert any("solution Zero2Optimizer" in found for found in answers_in(planted))
    assert any("05_pipeline/checks.py" in found for found in answers_in(planted))
    leaks = student_edition.leaks(planted)
    assert any("02_sharding/Zero2Optimizer" in leak for leak in leaks)
    assert any("a copy of autograde/sets/05_pipeline/checks.py" in leak for leak in leaks)
    # the middle of a solution block, re-indented, is found too
    lines = student_edition.solution_blocks()["01_data_parallelism/ring_all_reduce"]
    (planted / "lessons/scripts/helper.py").write_text("\n".join("  " + line for line in lines[2:8]))
    assert any("01_data_parallelism/ring_all_reduce" in leak for leak in student_edition.leaks(planted))


def write_tiny_exercise(path: Path, test_source: str) -> None:
    """A one-cell nbgrader notebook: its cell is a visible self-check."""
    cell = {"cell_type": "code", "execution_count": None, "id": "check", "outputs": [], "source": test_source,
            "metadata": {"nbgrader": {"grade": True, "grade_id": "check", "points": 1, "locked": False,
                                      "schema_version": 3, "solution": False, "task": False}}}
    kernelspec = {"name": "python3", "language": "python", "display_name": "Python 3"}
    notebook_source.write_notebook({"cells": [cell], "metadata": {"kernelspec": kernelspec},
                                    "nbformat": 4, "nbformat_minor": 5}, path)


def test_course_test_runs_the_visible_self_checks_in_the_edition(edition, env, tmp_path):
    def course_test(*notebook):
        return subprocess.run(["./course", "test", *notebook], cwd=edition, env=env, capture_output=True,
                              text=True, timeout=300)
    imported = subprocess.run([sys.executable, "-c", "import distlab; print(distlab.__file__)"], env=env,
                              capture_output=True, text=True)
    assert imported.stdout.startswith(str(edition / "src" / "distlab")), imported
    blank = course_test("exercises/07_inference/inference.ipynb")  # as released: every self-check fails
    assert blank.returncode == 1, blank.stdout + blank.stderr
    assert "VALIDATION FAILED" in blank.stdout and "NotImplementedError" in blank.stdout
    assert "No nbgrader_config.py" not in blank.stdout + blank.stderr
    write_tiny_exercise(tmp_path / "passes.ipynb", 'import distlab\nassert distlab.__file__.startswith("%s")'
                        % (edition / "src"))
    write_tiny_exercise(tmp_path / "fails.ipynb", "assert 1 + 1 == 3, 'arithmetic'")
    passing = course_test(str(tmp_path / "passes.ipynb"))
    assert passing.returncode == 0, passing.stdout + passing.stderr
    both = course_test(str(tmp_path / "passes.ipynb"), str(tmp_path / "fails.ipynb"))
    assert both.returncode == 1 and "AssertionError: arithmetic" in both.stdout


def test_course_lab_serves_the_edition_without_nbgrader_s_tools(edition, env):
    with running_lab(["./course", "lab"], edition, env) as lab:
        status, listed = lab.request("/api/contents/exercises/07_inference")
        assert status == 200 and [item["name"] for item in listed["content"]] == ["inference.ipynb"]
        assert lab.request("/lab/tree/lessons/01_data_parallelism.ipynb")[0] == 200
        assert lab.request("/formgrader/api/assignments")[0] == 404  # the learner's lab: no formgrader
