"""A class of hostile students, graded by the real command: every attack scores zero and leaves no trace.

    pytest tests/test_hostile.py

Each file of autograde/sets/<assignment>/hostile/ is one attack (its header says what it does): its code takes the place
of the first solution cell (or the last, with `# cell: last`; or the one named, `# cell: <grade_id>`), and every other
solution cell stays as released, so an attack can only score by forging a verdict. It must score 0 in every cell, or in
the cells `# zero:` lists (an attack that forges one part may honestly pass another, e.g. a dict that loads).
Each file of autograde/sets/<assignment>/hostile/folders/ is a submission folder no notebook cell can make (a symbolic
link, JSON nested 100,000 deep, a 1 GiB checkpoint): its `make(folder, solution, name)` fills the student's folder, the
solution at hand, and the student must be refused before grading, its reason in grades.json containing the
header's `# reason:`. Graded in the same run: honest controls, the reference solution and a
noisy honest notebook (warnings, magics, a hook, output, files in its folder: what some attacks also do) must score
full marks. After the run: no file of the course or of the submissions changed (grade.py exits 3 if one did), no
process of an attack is left, the instructor's IPython startup folder is untouched, nothing an attack tried to
create outside its sandbox exists, the graded notebooks stay small, and the whole run took bounded time.
"""
from __future__ import annotations

import hashlib
import json
import os
import runpy
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograde import notebooks, sets
from distlab import notebook_source

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.xdist_group("nbgrader")
ASSIGNMENTS = [s.name for s in sets.exercise_sets() if (s.folder / "hostile").is_dir()]
BUDGET_S, CELL_TIMEOUT_S = 120, 20  # an honest notebook takes ~15 s alone, over 60 s on a loaded machine
RUN_BOUND_S = 900  # the whole class, 2 jobs, loaded machine; honest ones take ~15 s, the sleepy attack its budget
NOTEBOOK_BYTES_BOUND = 2 * 2**20
DAEMON_MARKER = "distlab-hostile-daemon"
PWNED = Path("/tmp/distlab-hostile-pwned")

NOISY_HONEST_CELL = '''\
import logging, sys, warnings
warnings.warn("a warning is advice: it must not cost a point")
progress = logging.getLogger("honest-progress")  # issue 45, item 7: a cell's stderr cost the first check
progress.addHandler(logging.StreamHandler())  # on stderr
progress.setLevel(logging.INFO)
progress.info("loading the data")
print("100%|##########| 10/10 [00:00<00:00]", file=sys.stderr)  # what tqdm writes
get_ipython().events.register("pre_run_cell", lambda *args: None)
%time helper_squares = [i * i for i in range(1000)]
for i in range(2000):
    print("honest output line", i)
with open("scratch_notes.txt", "w") as f:  # its own working folder
    f.write("notes")
'''


def header(path: Path, key: str, default: str = "") -> str:
    for line in path.read_text().splitlines():
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    return default


def make_class(assignment: str, folder: Path) -> dict[str, str | list[str] | tuple[str, str]]:
    """Write one submission per attack plus the honest controls; returns {student: "full", "zero", the cells that
    must score zero, or ("refused", what its reason says)}."""
    (source,) = notebooks.assignment_notebooks(assignment)
    released = notebooks.EXERCISES / assignment / source.name
    solutions = list(notebook_source.solution_cells(source))
    expect = {}
    for attack in sorted((sets.get(assignment).folder / "hostile").glob("*.py")):
        cell = header(attack, "cell")
        assert cell in ("", "last", *solutions), f"{attack}: no solution cell {cell!r}"
        target = solutions[-1] if cell == "last" else cell if cell in solutions else solutions[0]
        notebook = notebooks.make_submission(released, source, {target: attack.read_text()}, fill_solutions=False)
        notebook_source.write_notebook(notebook, folder / f"hostile-{attack.stem}" / source.name)
        zero = header(attack, "zero")
        expect[f"hostile-{attack.stem}"] = [c.strip() for c in zero.split(",")] if zero else "zero"
    for case in sorted((sets.get(assignment).folder / "hostile" / "folders").glob("*.py")):
        student = folder / f"hostile-{case.stem}"
        student.mkdir(parents=True)
        runpy.run_path(str(case))["make"](student, notebooks.make_submission(released, source), source.name)
        expect[student.name] = ("refused", header(case, "reason"))
    honest = notebooks.make_submission(released, source)
    notebook_source.write_notebook(honest, folder / "honest-solution" / source.name)
    noisy = notebooks.make_submission(released, source)
    imports = next(i for i, c in enumerate(noisy["cells"]) if notebook_source.grade_id(c) == "imports")
    noisy["cells"].insert(imports + 1, {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                        "source": NOISY_HONEST_CELL})
    notebook_source.write_notebook(noisy, folder / "honest-noisy" / source.name)
    expect.update({"honest-solution": "full", "honest-noisy": "full"})
    return expect


def ipython_startup_hash() -> str:
    startup = Path.home() / ".ipython" / "profile_default" / "startup"
    files = sorted(startup.glob("*")) if startup.is_dir() else []
    return hashlib.sha256(b"".join(p.name.encode() + p.read_bytes() for p in files if p.is_file())).hexdigest()


@pytest.fixture(scope="module", params=ASSIGNMENTS)
def hostile_run(request, tmp_path_factory):
    assignment = request.param
    tmp = tmp_path_factory.mktemp(f"hostile-{assignment}")
    expect = make_class(assignment, tmp / "submissions")
    startup_before = ipython_startup_hash()
    command = [sys.executable, "-m", "autograde.grade", assignment, str(tmp / "submissions"), "--out",
               str(tmp / "out"), "--work", str(tmp / "work"), "--jobs", "2", "--budget", str(BUDGET_S),
               "--cell-timeout", str(CELL_TIMEOUT_S)]
    env = {k: v for k, v in os.environ.items() if k != "PATH"} | {"PATH": "/usr/bin:/bin"}
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, timeout=RUN_BOUND_S + 120, env=env, cwd=tmp)
    seconds = time.monotonic() - started
    report = json.loads((tmp / "out" / "grades.json").read_text()) if (tmp / "out" / "grades.json").exists() else {}
    return {"assignment": assignment, "tmp": tmp, "expect": expect, "result": result, "seconds": seconds,
            "report": report, "startup_changed": ipython_startup_hash() != startup_before}


def test_grading_finished_and_changed_no_file(hostile_run):
    result = hostile_run["result"]
    assert result.returncode in (0, 1), f"grade.py exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    assert "changed files" not in result.stderr, result.stderr


def test_honest_controls_score_full_marks(hostile_run):
    students = hostile_run["report"]["students"]
    for student, expected in hostile_run["expect"].items():
        if expected == "full":
            info = students[student]
            assert info["score"] == info["max_score"], f"{student}: {info.get('score')}/{info.get('max_score')}: {info.get('cells')}"


def test_every_attack_scores_zero(hostile_run):
    students = hostile_run["report"]["students"]
    for student, expected in hostile_run["expect"].items():
        if expected == "full":
            continue
        info = students[student]
        assert info["status"] in ("graded", "grading failed"), f"{student}: {info['status']}"
        if isinstance(expected, tuple):  # refused before grading: the reason says why
            assert info["status"] == "grading failed" and expected[1] in info.get("reason", ""), f"{student}: {info}"
        elif expected == "zero":
            assert not info.get("score"), f"{student} scored {info.get('score')}: {info.get('cells')}"
        else:
            scored = {cell: (info.get("cells") or {}).get(cell) for cell in expected}
            assert info["status"] == "graded" and not any(scored.values()), f"{student}: {scored}"


def test_no_attack_process_is_left(hostile_run):
    left = subprocess.run(["pgrep", "-af", DAEMON_MARKER], capture_output=True, text=True).stdout.strip()
    left = "\n".join(line for line in left.splitlines() if "pgrep" not in line)
    assert not left, f"processes started by a graded notebook outlived grading:\n{left}"


def test_nothing_outside_the_sandbox_was_touched(hostile_run):
    assert not PWNED.exists(), f"{PWNED} exists: code ran in the grader when it loaded a reply"
    assert not hostile_run["startup_changed"], "a notebook wrote into the instructor's ~/.ipython startup folder"
    assert not hostile_run["report"].get("gradebook_corrections"), hostile_run["report"]["gradebook_corrections"]


def test_graded_notebooks_and_feedback_stay_small(hostile_run):
    for path in [*(hostile_run["tmp"] / "work").rglob("autograded/**/*.ipynb"),
                 *(hostile_run["tmp"] / "out" / "feedback").rglob("*.html")]:
        assert path.stat().st_size < NOTEBOOK_BYTES_BOUND, f"{path}: {path.stat().st_size} bytes"


def test_grading_time_is_bounded(hostile_run):
    assert hostile_run["seconds"] < RUN_BOUND_S, f"{hostile_run['seconds']:.0f} s for the hostile class"
    for student, info in hostile_run["report"]["students"].items():
        assert (info.get("seconds") or 0) < BUDGET_S + 60, f"{student}: {info.get('seconds')} s, budget {BUDGET_S}"
