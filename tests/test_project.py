"""The project's own conventions: dependencies agree, notebooks are committed clean, the entry point answers.

    pytest tests/test_project.py
"""
import ast
import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest
import yaml

from autograde import sets

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for folder in ("lessons", "solutions", "exercises") for p in (ROOT / folder).rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)
CONDA_TO_PYPI = {"pytorch": "torch"}
ALLOWED_NOTEBOOK_METADATA = {"kernelspec", "language_info"}
ALLOWED_CELL_METADATA = {"nbgrader", "tags", "editable", "deletable"}
NBVAL_COMMENT = re.compile(r"\s*#\s*NBVAL_")  # noise for a learner: nbval reads cell tags (nbval-ignore-output, ...)


def _requirements(lines) -> dict[str, str]:
    """{normalised name: version specifier} of requirement strings like 'jupyterlab>=4,<5'."""
    parsed = {}
    for line in lines:
        name, spec = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*(.*?)\s*", line).groups()
        parsed[CONDA_TO_PYPI.get(name.lower(), name.lower().replace("_", "-"))] = spec.replace(" ", "")
    return parsed


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pyproject = _requirements(project["dependencies"] + project["optional-dependencies"]["dev"])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = _requirements(d for d in env["dependencies"] if isinstance(d, str) and not d.startswith(("python", "pip")))
    assert conda == pyproject, "environment.yml and pyproject.toml list different packages or versions"
    assert project["requires-python"] == ">=3.10" and "python>=3.10" in env["dependencies"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_notebooks_are_committed_clean(path):
    notebook = json.loads(path.read_text())
    assert set(notebook["metadata"]) <= ALLOWED_NOTEBOOK_METADATA, f"volatile notebook metadata in {path.name}"
    for index, cell in enumerate(notebook["cells"]):
        where = f"{path.name}, cell {index}"
        assert set(cell.get("metadata", {})) <= ALLOWED_CELL_METADATA, f"volatile cell metadata in {where}"
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, f"outputs left in {where}"
            markers = [line for line in "".join(cell["source"]).splitlines() if NBVAL_COMMENT.match(line)]
            assert not markers, f"{markers[0]!r} in {where}: give the cell nbval's tag (e.g. nbval-ignore-output)"
    if (notebook["nbformat"], notebook["nbformat_minor"]) >= (4, 5):  # nbformat 4.5 gives every cell an id
        ids = [cell.get("id") for cell in notebook["cells"]]
        missing = [index for index, cell_id in enumerate(ids) if not cell_id]
        assert not missing, f"{path.name}: cells {missing} have no id (nbformat warns; a future version refuses it)"
        assert len(set(ids)) == len(ids), f"{path.name}: two cells share an id"


def test_every_lesson_notebook_is_a_registered_set_s_with_its_solution_and_exercise_notebooks():
    """lessons/NN_*.ipynb are the registry's lessons (autograde/sets), each set with its notebooks in solutions/ and
    exercises/ (a lesson 10 counts too)."""
    registered = sets.exercise_sets()
    assert registered, "no exercise sets in autograde/sets/"
    assert sorted(ROOT.glob("lessons/[0-9][0-9]_*.ipynb")) == sorted(s.lesson for s in registered)
    for exercise_set in registered:
        assert any(exercise_set.solutions.glob("*.ipynb")) and any(exercise_set.exercises.glob("*.ipynb")), \
            exercise_set.name


def _graded_names(solution: Path) -> list[str]:
    """The functions and classes the learner writes: those defined in the set's solution cells."""
    names = []
    for cell in json.loads(solution.read_text())["cells"]:
        if cell["cell_type"] == "code" and cell["metadata"].get("nbgrader", {}).get("solution"):
            code = "".join(cell["source"])
            names += [node.name for node in ast.parse(code).body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    return names


def _table_rows(path: Path) -> list[list[str]]:
    """The cells of the rows of the markdown table whose first column is a lesson's number."""
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in path.read_text().splitlines() if re.match(r"\| \d+ \|", line)]


def test_the_course_plan_s_table_is_the_registry_row_by_row():
    """COURSE_PLAN.md's table has one row per registered set, in order: its number, its lesson's title, and in the
    "graded names" column what the set's solution cells define."""
    rows, registered = _table_rows(ROOT / "COURSE_PLAN.md"), sets.exercise_sets()
    assert [int(row[0]) for row in rows] == [s.number for s in registered]
    for row, exercise_set in zip(rows, registered):
        assert row[1] == exercise_set.title, f"COURSE_PLAN.md, lesson {row[0]}: set.toml says {exercise_set.title!r}"
        (solution,) = exercise_set.solutions.glob("*.ipynb")
        assert sorted(re.findall(r"`(\w+)`", row[3])) == sorted(_graded_names(solution)), exercise_set.name


def test_the_readme_s_lesson_table_is_the_registry_row_by_row():
    """README.md's lesson table has one row per registered set, in order: its number and a link to its lesson."""
    rows, registered = _table_rows(ROOT / "README.md"), sets.exercise_sets()
    assert [int(row[0]) for row in rows] == [s.number for s in registered]
    for row, exercise_set in zip(rows, registered):
        assert re.fullmatch(r"\[.+\]\((.+)\)", row[1])[1] == exercise_set.lesson.relative_to(ROOT).as_posix(), row[0]


@pytest.mark.parametrize("exercise_set", sets.exercise_sets(), ids=lambda s: s.name)
def test_a_set_s_lesson_minutes_are_what_its_lesson_says(exercise_set):
    """`lesson_minutes` is the core path its lesson's opening cell announces, and the sum of that cell's `~min`
    column (the book's index shows the sum: book/build.py, minutes_of)."""
    opening = next("".join(cell["source"]) for cell in json.loads(exercise_set.lesson.read_text())["cells"]
                   if cell["cell_type"] == "markdown")
    announced = re.findall(r"[Tt]he core path (?:takes about|is) (\d+) minutes", opening)
    column = sum(int(row.rsplit("|", 2)[1]) for row in opening.splitlines()
                 if re.fullmatch(r"\|.*\|\s*\d+\s*\|", row.strip()))
    assert [int(n) for n in announced] == [exercise_set.lesson_minutes] == [column], exercise_set.lesson.name


def test_course_script_explains_itself():
    result = subprocess.run([str(ROOT / "course"), "help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0 and "./course test" in result.stdout and "./course lab" in result.stdout
    result = subprocess.run([str(ROOT / "course"), "frobnicate"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2


LEARNER_HIDDEN = ["@jupyter/nbgrader"]  # nbgrader's sidebar and menus (Create Assignment, Formgrader, ...)
NO_NEWS = "@jupyterlab/apputils-extension:announcements"  # the "Jupyter news" pop-up


@pytest.mark.parametrize("mode", ["learner", "instructor"])
def test_course_lab_serves_the_lessons(tmp_path, mode):
    """`./course lab` starts JupyterLab on the first lesson (headless here; a learner gets a browser tab), prints lesson
    1's URL with its token, and shows nbgrader's instructor tools only with --instructor."""
    log = tmp_path / "lab.log"
    with open(log, "w") as out:
        lab = subprocess.Popen([str(ROOT / "course"), "lab", "--no-browser", "--ServerApp.port=0",
                                "--IdentityProvider.token=course-test", *(["--instructor"] * (mode == "instructor"))],
                               stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                               env={**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path)})
    try:
        url, deadline = None, time.monotonic() + 120
        while url is None and time.monotonic() < deadline and lab.poll() is None:
            time.sleep(0.5)
            found = re.search(r"http://127\.0\.0\.1:\d+", log.read_text())
            url = found.group(0) if found else None
        assert url, f"JupyterLab did not start:\n{log.read_text()[-2000:]}"
        assert f"{url}/lab/tree/lessons/01_data_parallelism.ipynb?token=" in log.read_text(), "no URL of lesson 1"
        with urllib.request.urlopen(f"{url}/api/contents/lessons?token=course-test", timeout=30) as response:
            names = {item["name"] for item in json.load(response)["content"]}
        assert "01_data_parallelism.ipynb" in names
        with urllib.request.urlopen(f"{url}/lab?token=course-test", timeout=30) as response:
            page = response.read().decode()
        config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page,
                                      re.S).group(1))
        hidden = [name for name in LEARNER_HIDDEN if name in config["disabledExtensions"]]
        assert hidden == (LEARNER_HIDDEN if mode == "learner" else []) and NO_NEWS in config["disabledExtensions"]
        loaded = "nbgrader.server_extensions.formgrader | extension was successfully loaded" in log.read_text()
        assert loaded == (mode == "instructor") and ("nbgrader_config" in log.read_text()) <= loaded  # its warning
    finally:
        try:
            os.killpg(lab.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass  # it had already exited (the assert above says why)
        lab.wait(timeout=30)


def test_every_distlab_environment_variable_is_listed():
    """Issue 48.4: every `DISTLAB_*` environment variable the repository reads is in distlab.environment's one list
    (who reads it, what it changes), and the list names nothing the repository no longer uses."""
    from distlab.environment import NOT_VARIABLES, VARIABLES
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    used: dict[str, str] = {}
    for name in tracked:
        path = ROOT / name
        if path.suffix in {".png", ".svg", ".ico", ".zip"} or name == "src/distlab/environment.py" or not path.is_file():
            continue
        for found in re.findall(r"\bDISTLAB_[A-Z0-9_]*[A-Z0-9]\b", path.read_text(errors="replace")):
            used.setdefault(found, name)
    unlisted = {v: where for v, where in used.items() if v not in VARIABLES and v not in NOT_VARIABLES}
    assert not unlisted, f"add these to src/distlab/environment.py's VARIABLES (name: first file that uses it): {unlisted}"
    assert not set(VARIABLES) - set(used), f"listed but used nowhere: {sorted(set(VARIABLES) - set(used))}"


def test_the_core_that_the_grader_uses_imports_no_torch():
    """Issue 48.4: `import distlab` is lazy (PEP 562), and the torch-free core (deadline, process_tree, forkserver,
    ports, environment, topology, notebook_source and the modules that name a failure) and nbgrader's configuration
    import no torch, so nbgrader's commands other than autograde, the grader's own process and the benchmarks' drivers
    do not spend torch's import (seconds) on them."""
    code = ("import sys, runpy\n"
            "import distlab, distlab.launching.deadline, distlab.launching.process_tree, distlab.launching.forkserver\n"
            "import distlab.topology, distlab.faults, distlab.launching._where, distlab.launching._explain\n"
            "import distlab.notebook_source, distlab.launching.ports\n"
            "import distlab.environment, autograde.notebooks\n"
            "class Config(dict):\n"
            "    def __getattr__(self, name): return self.setdefault(name, Config())\n"
            "    def __setattr__(self, name, value): self[name] = value\n"
            "runpy.run_path('autograde/nbgrader_config.py', init_globals={'get_config': Config})\n"
            "print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout[-2000:] + out.stderr[-2000:]
    lazy = subprocess.run([sys.executable, "-c", "import distlab; distlab.launch; import sys; print('torch' in sys.modules)"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert lazy.stdout.strip() == "True", lazy.stderr[-2000:]  # and a name still brings its module in


def test_distlab_torchrun_is_the_function_in_a_notebook_kernel_too():
    """`distlab.torchrun` is the function, in a kernel (`ipykernel` imported: the `%%torchrun` magic is registered)
    and in a script, and costs no torch import. Its module was once `distlab/torchrun.py`, and importing it bound the
    module to `distlab.torchrun`: every lesson's `distlab.torchrun(...)` cell failed with "'module' object is not
    callable". It lives in `distlab/launching/` now, so no submodule can shadow the function."""
    code = ("import sys, types\n"
            "if sys.argv[1] == 'kernel':\n"
            "    sys.modules['ipykernel'] = types.ModuleType('ipykernel')\n"
            "import distlab, distlab.launching.torchrun\n"
            "from distlab import torchrun\n"
            "print(callable(distlab.torchrun) and torchrun is distlab.torchrun and 'torch' not in sys.modules)\n")
    for where in ("kernel", "script"):
        out = subprocess.run([sys.executable, "-c", code, where], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert out.stdout.strip() == "True", f"{where}: {out.stdout[-1000:]}{out.stderr[-2000:]}"
