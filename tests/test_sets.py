"""The registry of exercise sets (autograde/sets): each set declared once, checked on load; nothing else lists sets.

    pytest tests/test_sets.py
"""
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from autograde import notebooks, sets
from distlab.launching.preset import LaunchPreset

ROOT = Path(__file__).resolve().parents[1]
# A set's home: its declaration, trusted checks, rank-side code, statement stand-ins, mutants, variants and attacks
SET_FILES = {"set.toml", "checks.py", "ranks.py", "statement.py", "mutants", "variants", "hostile"}
GOOD = {"number": "4", "title": '"Tensor parallelism"', "lesson": '"lessons/04_tp.ipynb"', "lesson_minutes": "80"}


def registry(tmp_path, specs: dict[str, dict[str, str] | None], lessons=("04_tp",)) -> tuple[Path, Path]:
    """A repository in `tmp_path` with these lesson notebooks and, per folder of autograde/sets/, its set.toml's
    {key: TOML value} (None: a folder without one)."""
    (tmp_path / "lessons").mkdir()
    for lesson in lessons:
        (tmp_path / "lessons" / f"{lesson}.ipynb").write_text("{}")
    for folder, spec in specs.items():
        (tmp_path / "sets" / folder).mkdir(parents=True)
        if spec is not None:
            (tmp_path / "sets" / folder / "set.toml").write_text("".join(f"{k} = {v}\n" for k, v in spec.items()))
    return tmp_path / "sets", tmp_path


@pytest.mark.parametrize("module", ["autograde.sets", "distlab.launching.preset"])
def test_the_registry_and_the_preset_import_no_torch(module):
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "[]"


def test_the_course_s_sets_are_numbered_in_order_each_in_its_folder():
    registered = sets.exercise_sets()
    assert [s.number for s in registered] == sorted({s.number for s in registered}) and registered
    for exercise_set in registered:
        assert exercise_set.name.startswith(f"{exercise_set.number:02d}_") and exercise_set.folder.is_dir()
        assert exercise_set.lesson.is_file() and exercise_set.lesson.is_relative_to(ROOT / "lessons")
        assert exercise_set is sets.get(exercise_set.name)
    assert notebooks.assignments() == sets.names() == [s.name for s in registered]


def test_every_folder_named_after_a_set_belongs_to_a_registered_set_and_every_set_has_its_files():
    """A set's notebooks are found by its name: a folder with a name no set has would be silently skipped. Its own
    folder holds its checks, its mutants and (at least five) variants."""
    names = set(sets.names())
    for folder in ("solutions", "exercises"):
        found = {p.name for p in (ROOT / folder).iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
        assert found <= names, f"{folder}/{sorted(found - names)[0]}/: no set of that name in autograde/sets/"
    for exercise_set in sets.exercise_sets():
        home = exercise_set.folder
        assert (home / "checks.py").is_file(), f"set {exercise_set.name} has no {home / 'checks.py'}"
        assert any((home / "mutants").glob("*.py")), f"set {exercise_set.name} has no mutants in {home / 'mutants'}"
        assert len(list((home / "variants").glob("*.py"))) >= 5, f"set {exercise_set.name}: fewer than 5 variants"
        unknown = {p.name for p in home.iterdir() if not p.name.startswith((".", "_"))} - SET_FILES
        assert not unknown, f"{home}: {sorted(unknown)} is none of a set's files {sorted(SET_FILES)}"


def test_a_well_formed_set_loads_with_its_defaults(tmp_path):
    (loaded,) = sets.load(*registry(tmp_path, {"04_tp": GOOD}))
    assert (loaded.name, loaded.number, loaded.title, loaded.lesson_minutes) == ("04_tp", 4, "Tensor parallelism", 80)
    assert loaded.lesson == tmp_path / "lessons/04_tp.ipynb" and loaded.solutions == tmp_path / "solutions/04_tp"
    assert loaded.launch is None and loaded.ranks_import_dynamo is True and loaded.grading_seconds is None


def test_a_set_s_launch_table_is_its_preset(tmp_path):
    spec = {**GOOD, "ranks_import_dynamo": "false", "grading_seconds": "12.5", "[launch]\ntimeout": "30",
            "collective_timeout": "10"}
    (loaded,) = sets.load(*registry(tmp_path, {"04_tp": spec}))
    assert loaded.launch == LaunchPreset(timeout=30, collective_timeout=10) and loaded.ranks_import_dynamo is False
    assert loaded.grading_seconds == 12.5


@pytest.mark.parametrize("specs, lessons, message", [
    ({"04_tp": {k: v for k, v in GOOD.items() if k != "lesson_minutes"}}, ["04_tp"],
     r"04_tp/set.toml: missing key\(s\) \['lesson_minutes'\]"),
    ({"04_tp": {**GOOD, "lesson_minute": "80"}}, ["04_tp"], r"04_tp/set.toml: unknown key\(s\) \['lesson_minute'\]"),
    ({"04_tp": {**GOOD, "number": '"4"'}}, ["04_tp"], r"04_tp/set.toml: number = '4' is not an integer"),
    ({"04_tp": {**GOOD, "number": "true"}}, ["04_tp"], r"number = True is not an integer"),
    ({"04_tp": {**GOOD, "ranks_import_dynamo": "1"}}, ["04_tp"], r"ranks_import_dynamo = 1 is not true or false"),
    ({"04_tp": {**GOOD, "lesson_minutes": "0"}}, ["04_tp"], r"lesson_minutes = 0 must be positive"),
    ({"04_tp": GOOD}, [], r"04_tp/set.toml: lesson = 'lessons/04_tp.ipynb': no such file"),
    ({"05_tp": GOOD}, ["04_tp"], r"05_tp/set.toml: number = 4, but the folder's name starts with 05"),
    ({"04_tp": {**GOOD, "lesson": '"lessons/../04_tp.ipynb"'}}, ["04_tp"], r"a set's lesson is lessons/04_tp.ipynb"),
    ({"04_tp": GOOD, "04_tq": {**GOOD, "lesson": '"lessons/04_tq.ipynb"'}}, ["04_tp", "04_tq"],
     r"04_tp/ and 04_tq/ both declare number = 4"),
    ({"04_tp": None}, ["04_tp"], r"04_tp/set.toml is missing"),
    ({"tp": GOOD}, ["04_tp"], r"autograde/sets/tp/: a set's folder is named NN_<topic>"),
    ({"04_tp": {**GOOD, "title": "Tensor"}}, ["04_tp"], r"04_tp/set.toml: not valid TOML"),
    ({"04_tp": {**GOOD, "[launch]\ntimeout": "0"}}, ["04_tp"], r"\[launch\]: LaunchPreset.timeout must be a positive"),
    ({"04_tp": {**GOOD, "[launch]\ntimout": "30"}}, ["04_tp"], r"\[launch\] takes timeout and collective.*'timout'"),
    ({"04_tp": {**GOOD, "[launch]\nbackend": '"gloo"'}}, ["04_tp"], r"\[launch\] takes .*'backend'"),
], ids=["missing key", "unknown key", "string number", "bool number", "int flag", "no minutes", "no lesson",
        "folder and number differ", "lesson not named after it", "one number twice", "no set.toml", "folder name",
        "bad toml", "bad preset", "unknown preset key", "a preset key the sandbox does not take"])
def test_an_inconsistent_registry_is_refused_naming_the_file_and_the_problem(tmp_path, specs, lessons, message):
    with pytest.raises(sets.SetError, match=message):
        sets.load(*registry(tmp_path, specs, lessons))


def test_a_solutions_folder_no_set_declares_or_a_set_without_its_notebook_is_an_error(tmp_path, monkeypatch):
    sets_dir, repo = registry(tmp_path, {"04_tp": GOOD})
    monkeypatch.setattr(sets, "exercise_sets", lambda: sets.load(sets_dir, repo))
    monkeypatch.setattr(notebooks, "SOLUTIONS", repo / "solutions")
    (repo / "solutions/04_tp").mkdir(parents=True)
    with pytest.raises(sets.SetError, match=r"set 04_tp \(autograde/sets/04_tp/set.toml\) has no notebook in "):
        notebooks.assignments()
    (repo / "solutions/04_tp/tp.ipynb").write_text("{}")
    assert notebooks.assignments() == ["04_tp"]
    (repo / "solutions/08_serving").mkdir()
    (repo / "solutions/08_serving/serving.ipynb").write_text("{}")
    with pytest.raises(sets.SetError, match=r"solutions/08_serving/ holds a notebook, but no exercise set declares"):
        notebooks.assignments()


def test_a_preset_gives_the_keyword_arguments_both_launches_take():
    from autograde.sandbox import Submission
    from distlab.launching.launcher import launch
    preset = LaunchPreset(timeout=30, collective_timeout=10)
    assert preset.kwargs() == {"timeout": 30, "collective_timeout": 10}
    assert LaunchPreset(timeout=30).kwargs() == {"timeout": 30}  # the callee's own collective_timeout
    for fn in (launch, Submission.launch):
        inspect.signature(fn).bind_partial("rank_fn", 4, **preset.kwargs())
    for name in sets.names():
        exercise_set = sets.get(name)
        if exercise_set.launch is not None:
            inspect.signature(Submission.launch).bind_partial("rank_fn", 4, **exercise_set.launch.kwargs())


@pytest.mark.parametrize("fields, message", [({"timeout": 0}, "timeout must be a positive"),
                                             ({"collective_timeout": -1}, "collective_timeout must be a positive"),
                                             ({"timeout": "30"}, "timeout must be a positive"),
                                             ({"timeout": 10, "collective_timeout": 20}, "longer than the launch's")])
def test_a_preset_out_of_range_is_refused_naming_the_field(fields, message):
    with pytest.raises(ValueError, match=message):
        LaunchPreset(**fields)
