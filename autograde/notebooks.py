"""Helpers around the course's nbgrader notebooks, shared by the grading and release commands and their tests: the
assignments, a submission built from a released notebook, a release compared with nbgrader's, nbgrader run in a
subprocess (`run_nbgrader`). The standard library and distlab's torch-free core; reading a notebook (cells, solution
sources, a lesson's definitions) is `distlab.notebook_source`, which the benchmarks and the book use too.

    from autograde.notebooks import make_submission
    notebook = make_submission("exercises/01_data_parallelism/data_parallelism.ipynb",
                               "solutions/01_data_parallelism/data_parallelism.ipynb", {"ring_all_reduce": "..."})
"""
from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from autograde import sets
from distlab.launching.process_tree import kill_tree
from distlab.notebook_source import (SOLUTION_MARKERS, cell_source, grade_id, nbgrader_metadata, read_notebook,
                                     solution_cells, strip_solution_markers)

AUTOGRADE = Path(__file__).resolve().parent
REPO = AUTOGRADE.parent
SOLUTIONS = REPO / "solutions"
EXERCISES = REPO / "exercises"
DEFAULT_WORK = AUTOGRADE / "work"

HIDDEN_TEST_MARKERS = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")
_REGEX_SPECIALS = re.compile(r"[\\^$*+?{}\[\]|()]")


# --- the course's assignments ---------------------------------------------------------------------------------

def assignments() -> list[str]:
    """Assignment names: the exercise sets of autograde/sets/, by number. A set without its notebook in solutions/,
    or a solutions/ folder with a notebook that no set declares, is an error that names it."""
    registered = sets.exercise_sets()
    unclaimed = sorted({p.name for p in SOLUTIONS.iterdir() if p.is_dir() and any(p.glob("*.ipynb"))}
                       - {exercise_set.name for exercise_set in registered})
    if unclaimed:
        raise sets.SetError(f"solutions/{unclaimed[0]}/ holds a notebook, but no exercise set declares it: add "
                            f"autograde/sets/{unclaimed[0]}/set.toml (autograde/README.md, \"Adding an exercise set\")")
    for exercise_set in registered:
        if not any(exercise_set.solutions.glob("*.ipynb")):
            raise sets.SetError(f"exercise set {exercise_set.name} (autograde/sets/{exercise_set.name}/set.toml) has "
                                f"no notebook in solutions/{exercise_set.name}/")
    return [exercise_set.name for exercise_set in registered]


def assignment_notebooks(assignment: str, source_dir=SOLUTIONS) -> list[Path]:
    return sorted(p for p in (Path(source_dir) / assignment).glob("*.ipynb"))


# --- building submissions ---------------------------------------------------------------------------------------

def make_submission(student_notebook, source_notebook, replacements: dict[str, str] | None = None,
                    fill_solutions: bool = True) -> dict:
    """A student's notebook as a learner would hand it in: the released notebook with each solution cell's source
    replaced by `replacements[grade_id]` if given, else (when `fill_solutions`) by the source notebook's solution."""
    notebook = copy.deepcopy(read_notebook(student_notebook))
    solutions = solution_cells(source_notebook)
    replacements = dict(replacements or {})
    unknown = set(replacements) - set(solutions)
    if unknown:
        raise KeyError(f"no solution cell(s) {sorted(unknown)} in {source_notebook}")
    for cell in notebook["cells"]:
        gid = grade_id(cell)
        if cell["cell_type"] != "code" or not nbgrader_metadata(cell).get("solution"):
            continue
        if gid in replacements:
            cell["source"] = replacements.pop(gid)
        elif fill_solutions:
            cell["source"] = strip_solution_markers(solutions[gid])
    if replacements:
        raise KeyError(f"solution cell(s) {sorted(replacements)} are missing from {student_notebook}")
    return notebook


# --- comparing a release with what nbgrader generates -----------------------------------------------------------

VOLATILE_CELL_METADATA = {"execution", "collapsed", "scrolled", "trusted", "ExecuteTime"}


def release_differences(committed, generated) -> list[str]:
    """Where notebook `committed` differs from `generated` in what matters: cell count, types, sources, nbgrader
    metadata (checksums included) and other cell metadata except volatile fields, and the notebook's kernelspec."""
    a, b = read_notebook(committed), read_notebook(generated)
    problems = []
    if a["metadata"].get("kernelspec") != b["metadata"].get("kernelspec"):
        problems.append("notebook kernelspec differs")
    if len(a["cells"]) != len(b["cells"]):
        problems.append(f"{len(a['cells'])} cells, nbgrader generates {len(b['cells'])}")
    for index, (x, y) in enumerate(zip(a["cells"], b["cells"])):
        where = f"cell {index} ({grade_id(y) or y['cell_type']})"
        if x["cell_type"] != y["cell_type"]:
            problems.append(f"{where}: type {x['cell_type']}, nbgrader generates {y['cell_type']}")
        if cell_source(x) != cell_source(y):
            problems.append(f"{where}: source differs")
        mx = {k: v for k, v in x.get("metadata", {}).items() if k not in VOLATILE_CELL_METADATA}
        my = {k: v for k, v in y.get("metadata", {}).items() if k not in VOLATILE_CELL_METADATA}
        if mx != my:
            problems.append(f"{where}: metadata {mx}, nbgrader generates {my}")
    return problems


def leaked_lines(source_notebook, student_notebook) -> list[str]:
    """Lines of solution code or hidden tests of the source notebook that the student notebook contains, other than
    lines that also appear in the source outside those blocks (e.g. a signature, a blank line)."""
    source = read_notebook(source_notebook)
    secret, public = set(), set()
    for cell in source["cells"]:
        inside = None
        for line in cell_source(cell).split("\n"):
            key = line.strip()
            if key in (SOLUTION_MARKERS[0], HIDDEN_TEST_MARKERS[0]):
                inside = key
            elif key in (SOLUTION_MARKERS[1], HIDDEN_TEST_MARKERS[1]):
                inside = None
            elif key:
                (secret if inside else public).add(key)
    secret -= public
    student_lines = {line.strip() for cell in read_notebook(student_notebook)["cells"]
                     for line in cell_source(cell).split("\n")}
    markers = set(SOLUTION_MARKERS + HIDDEN_TEST_MARKERS)
    return sorted((secret | markers) & student_lines)


# --- running nbgrader -------------------------------------------------------------------------------------------

def check_nbgrader_path(path) -> str:
    """nbgrader matches its folders as regular expressions without escaping them: refuse paths it would misread."""
    path = os.path.abspath(path)
    if _REGEX_SPECIALS.search(path):
        raise ValueError(f"nbgrader cannot work in {path!r}: it contains one of \\^$*+?{{}}[]|() ; use another folder")
    return path


def nbgrader_env(work, source_dir=None, release_dir=None, base: dict | None = None) -> dict:
    """The environment nbgrader (and the kernels it starts) need: this Python's bin/ first on PATH (nbgrader shells
    out to `alembic`, and the course's `python3` kernelspec runs `python`), and the folders for nbgrader_config.py."""
    env = dict(os.environ if base is None else base)
    bin_dir = os.path.dirname(sys.executable)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["DISTLAB_GRADING_WORK"] = check_nbgrader_path(work)
    env["DISTLAB_SOURCE_DIR"] = check_nbgrader_path(source_dir or SOLUTIONS)
    env["DISTLAB_RELEASE_DIR"] = check_nbgrader_path(release_dir or EXERCISES)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def run_nbgrader(args: list[str], work, source_dir=None, release_dir=None, timeout: float | None = None,
                 log=None) -> subprocess.CompletedProcess:
    """Run `nbgrader <args>` with the course's config (autograde/ as cwd), in work folder `work`.

    Output goes to `log` (an open file) or is captured. Returns the CompletedProcess (no exception on failure: nbgrader
    exits 1 when one submission failed, and grading goes on); raises subprocess.TimeoutExpired after `timeout` s,
    with nbgrader and every process it started killed.
    """
    Path(work).mkdir(parents=True, exist_ok=True)
    env = nbgrader_env(work, source_dir, release_dir)
    command = [sys.executable, "-m", "nbgrader", *args]
    out = log if log is not None else subprocess.PIPE
    proc = subprocess.Popen(command, cwd=AUTOGRADE, env=env, stdout=out, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)  # its own process group: kernels and ranks die with it
    try:
        stdout, _ = proc.communicate(timeout=timeout)
    except BaseException:
        kill_tree(proc)
        raise
    kill_tree(proc)  # leftovers (a kernel that outlived nbgrader), if any
    return subprocess.CompletedProcess(command, proc.returncode, stdout or "", "")


def release(assignment: str, release_dir, work, source_dir=None, timeout: float = 300) -> Path:
    """Generate the student version of `assignment` into `release_dir`/<assignment> with nbgrader (recording the
    assignment in `work`'s gradebook). Raises RuntimeError with nbgrader's output if it fails."""
    target = Path(release_dir) / assignment
    result = run_nbgrader(["generate_assignment", assignment, "--force"], work=work, source_dir=source_dir,
                          release_dir=release_dir, timeout=timeout)
    if result.returncode != 0 or not target.is_dir():
        raise RuntimeError(f"nbgrader generate_assignment {assignment} failed:\n{result.stdout}")
    return target


def copy_tree(src, dst) -> None:
    if Path(dst).exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
