"""Helpers around the course's nbgrader notebooks, shared by the grading and release commands, the tests and the
benchmarks. Plain JSON, the standard library and distlab's torch-free `kill_tree` (nbgrader itself runs in a
subprocess, see `run_nbgrader`).

    from autograde.notebooks import solution_source
    source = solution_source("solutions/01_data_parallelism/data_parallelism.ipynb", "ring_all_reduce")
"""
from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from distlab.launching.process_tree import kill_tree

AUTOGRADE = Path(__file__).resolve().parent
REPO = AUTOGRADE.parent
SOLUTIONS = REPO / "solutions"
EXERCISES = REPO / "exercises"
DEFAULT_WORK = AUTOGRADE / "work"

SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
HIDDEN_TEST_MARKERS = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")
_REGEX_SPECIALS = re.compile(r"[\\^$*+?{}\[\]|()]")


# --- reading notebooks ------------------------------------------------------------------------------------------

def read_notebook(path) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_notebook(notebook: dict, path) -> None:
    """Write as nbformat does (1-space indent, sorted keys, trailing newline)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(notebook, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")


def cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def nbgrader_metadata(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def grade_id(cell: dict) -> str | None:
    return nbgrader_metadata(cell).get("grade_id")


def solution_cells(notebook_path) -> dict[str, str]:
    """{grade_id: source} of the notebook's code cells that learners fill in (nbgrader `solution: true`)."""
    return {grade_id(c): cell_source(c) for c in read_notebook(notebook_path)["cells"]
            if c["cell_type"] == "code" and nbgrader_metadata(c).get("solution")}


def test_cells(notebook_path) -> dict[str, float]:
    """{grade_id: points} of the notebook's autograded test cells (nbgrader `grade: true`, code)."""
    return {grade_id(c): nbgrader_metadata(c).get("points", 0) for c in read_notebook(notebook_path)["cells"]
            if c["cell_type"] == "code" and nbgrader_metadata(c).get("grade")}


def strip_solution_markers(source: str) -> str:
    """The source without its `### BEGIN SOLUTION` / `### END SOLUTION` lines (the code between them stays)."""
    return "\n".join(line for line in source.split("\n") if line.strip() not in SOLUTION_MARKERS)


def solution_source(notebook_path, grade_id: str) -> str:
    """The source of solution cell `grade_id` in an nbgrader source notebook, marker lines removed: runnable code."""
    cells = solution_cells(notebook_path)
    if grade_id not in cells:
        raise KeyError(f"{notebook_path}: no solution cell with grade_id {grade_id!r} (there are: {sorted(cells)})")
    return strip_solution_markers(cells[grade_id])


def load_solution(notebook_path, grade_id: str, namespace: dict | None = None) -> dict:
    """Execute solution cell `grade_id` (after `import torch`, `import torch.distributed as dist`, ...) and return
    its namespace, e.g. `load_solution(path, "ring_all_reduce")["ring_all_reduce"]`. The functions are defined in a
    module-less namespace, so cloudpickle (and `distlab.launch`) sends them by value."""
    import math

    import torch
    import torch.distributed as dist
    import torch.nn as nn

    ns = {"__name__": f"solution_{grade_id}", "math": math, "torch": torch, "dist": dist, "nn": nn}
    ns.update(namespace or {})
    exec(compile(solution_source(notebook_path, grade_id), f"{notebook_path}#{grade_id}", "exec"), ns)
    return ns


def load_definitions(notebook_path, names, namespace: dict | None = None) -> dict:
    """Execute the top-level definitions of `names` in a notebook's code cells, in cell order, and return the
    namespace: each `def` or `class` of one of those names and each assignment to one, no other statement (no cell's
    training or launching runs). `namespace` holds what they use: modules, constants, stand-ins. Like `load_solution`,
    the functions are defined in a module-less namespace, so cloudpickle (and `distlab.launch`) sends them by value.
    The benchmarks run a lesson's own code this way, e.g. `load_definitions(path, ("gpipe",), {"torch": torch})`.
    Raises LookupError naming what the notebook no longer defines."""
    import ast

    wanted = set(names)

    def defines(node) -> bool:
        if isinstance(node, ast.Assign):
            return any(isinstance(target, ast.Name) and target.id in wanted for target in node.targets)
        return getattr(node, "name", None) in wanted

    ns = dict(namespace or {})
    for cell in read_notebook(notebook_path)["cells"]:
        if cell["cell_type"] == "code":
            body = [node for node in ast.parse(cell_source(cell)).body if defines(node)]
            exec(compile(ast.Module(body=body, type_ignores=[]), str(notebook_path), "exec"), ns)
    missing = sorted(wanted - set(ns))
    if missing:
        raise LookupError(f"{Path(notebook_path).name} no longer defines {missing}")
    return ns


def assignments() -> list[str]:
    """Assignment names: the folders of solutions/ that hold a notebook."""
    return sorted(p.name for p in SOLUTIONS.iterdir() if p.is_dir() and any(p.glob("*.ipynb")))


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
