"""The course's exercise sets, in order: one folder each, autograde/sets/<name>/, whose set.toml declares the set.

    from autograde import sets
    for exercise_set in sets.exercise_sets():            # by number
        print(exercise_set.number, exercise_set.name, exercise_set.lesson.name, exercise_set.lesson_minutes)
    student.launch("rank_fn", 4, **sets.get("04_tensor_parallelism").launch.kwargs())

Everything that lists sets reads them here: the grading tests, conftest's order, the book's index, the course tables'
test, `autograde.notebooks.assignments()`. Adding a set is adding its folder (and its lesson and notebooks), like
torchtitan's one `TrainSpec` per model. The folder is the set's home: set.toml, checks.py (trusted), ranks.py (run in
the sandbox), statement.py (optional stand-ins), mutants/, variants/, hostile/ (autograde/README.md, "Adding an
exercise set"); its name is the set's everywhere else: lessons/<name>.ipynb, solutions/<name>/, exercises/<name>/.

A set.toml (tomllib, the standard library; no torch is imported here):

    number = 4                                    # the lesson's number; the folder's name starts with it: 04_...
    title = "Tensor parallelism, whole Transformer block"   # COURSE_PLAN.md's lesson column
    lesson = "lessons/04_tensor_parallelism.ipynb"          # lessons/<the folder's name>.ipynb
    lesson_minutes = 80                           # the core path, as the lesson's opening cell says
    ranks_import_dynamo = true                    # optional (true): see `ExerciseSet.ranks_import_dynamo`
    grading_seconds = 277                         # optional: its class's grading time in CI (conftest: longest first)

    [launch]                                      # optional: the checks' launches of the learner's ranks
    timeout = 30                                  # LaunchPreset's timeout and collective_timeout
    collective_timeout = 10
"""
from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from distlab.launching.preset import LaunchPreset

SETS_DIR = Path(__file__).resolve().parent
REPO = SETS_DIR.parents[1]
NAME = re.compile(r"(\d\d)_[a-z][a-z0-9_]*")
REQUIRED = {"number": int, "title": str, "lesson": str, "lesson_minutes": int}
OPTIONAL = {"ranks_import_dynamo": bool, "grading_seconds": (int, float), "launch": dict}


class SetError(ValueError):
    """The registry of exercise sets is inconsistent; the message names the file and what is wrong."""


@dataclass(frozen=True)
class ExerciseSet:
    """One exercise set and its lesson, as autograde/sets/<name>/set.toml declares them."""
    name: str  # the folder's name, and the set's in lessons/, solutions/, exercises/
    number: int  # its lesson's number
    title: str  # its lesson's title, as COURSE_PLAN.md's table gives it
    lesson: Path  # the lesson notebook
    lesson_minutes: int  # the lesson's core path, in minutes (its opening cell says so)
    solutions: Path  # solutions/<name>/: the nbgrader source notebook(s)
    exercises: Path  # exercises/<name>/: what `python -m autograde.release <name>` generates from them
    launch: LaunchPreset | None = None  # the deadlines of the checks' `student.launch` calls; None: they launch none
    # Whether the sandbox's forkserver imports torch._dynamo once for every rank (0.6 s of CPU each): building an
    # optimizer or DDP does, so does the first operation under any TorchDispatchMode (`distlab.count_comm`,
    # `track_memory`), and some of TinyTransformer's backward. False only where grading the solution is measured
    # faster that way (`python -m autograde.try_checks <set>` prints each check's time).
    ranks_import_dynamo: bool = True
    grading_seconds: float | None = None  # its class's grading time, measured in CI: conftest grades the longest first

    @property
    def folder(self) -> Path:
        """autograde/sets/<name>/: its set.toml, checks, rank code, stand-ins, mutants, variants and attacks."""
        return SETS_DIR / self.name


def get(name: str) -> ExerciseSet:
    """The set named `name` (its folder's name, e.g. "07_inference")."""
    for exercise_set in exercise_sets():
        if exercise_set.name == name:
            return exercise_set
    raise KeyError(f"no exercise set {name!r} in autograde/sets/ (there are: {names()})")


def names() -> list[str]:
    """The sets' names, by number."""
    return [exercise_set.name for exercise_set in exercise_sets()]


@functools.cache
def exercise_sets() -> tuple[ExerciseSet, ...]:
    """Every set of autograde/sets/, by number; read and checked once per process."""
    return load(SETS_DIR, REPO)


def load(sets_dir: Path, repo: Path) -> tuple[ExerciseSet, ...]:
    """The sets declared in `sets_dir`/<name>/set.toml, lesson paths taken from `repo`, by number. SetError names
    the first problem: a folder that is not `NN_<topic>` or has no set.toml, a key missing, unknown or of the wrong
    type, a folder whose NN is not its number, a lesson other than lessons/<name>.ipynb or that does not exist, two
    sets with one number."""
    folders = sorted(p for p in sets_dir.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    found = [read(folder, repo) for folder in folders]
    by_number = {}
    for exercise_set in found:
        if exercise_set.number in by_number:
            raise SetError(f"autograde/sets/{by_number[exercise_set.number].name}/ and {exercise_set.name}/ both "
                           f"declare number = {exercise_set.number}: one set per lesson number")
        by_number[exercise_set.number] = exercise_set
    return tuple(sorted(found, key=lambda exercise_set: exercise_set.number))


def read(folder: Path, repo: Path) -> ExerciseSet:
    """The set that `folder`/set.toml declares, checked by itself (`load` checks the sets together)."""
    where = f"autograde/sets/{folder.name}/set.toml"
    if not NAME.fullmatch(folder.name):
        raise SetError(f"autograde/sets/{folder.name}/: a set's folder is named NN_<topic> (lower case), "
                       "e.g. 08_serving")
    if not (folder / "set.toml").is_file():
        raise SetError(f"{where} is missing: every folder of autograde/sets/ declares its set there")
    try:
        spec = tomllib.loads((folder / "set.toml").read_text())
    except tomllib.TOMLDecodeError as exc:
        raise SetError(f"{where}: not valid TOML: {exc}") from None
    missing = [key for key in REQUIRED if key not in spec]
    unknown = sorted(set(spec) - set(REQUIRED) - set(OPTIONAL))
    if missing or unknown:
        raise SetError(f"{where}: " + "; ".join([*([f"missing key(s) {missing}"] * bool(missing)),
                                                 *([f"unknown key(s) {unknown}"] * bool(unknown))])
                       + f" (the keys: {[*REQUIRED, *OPTIONAL]})")
    for key, kind in {**REQUIRED, **OPTIONAL}.items():
        if key in spec and (not isinstance(spec[key], kind) or (kind is not bool and type(spec[key]) is bool)):
            raise SetError(f"{where}: {key} = {spec[key]!r} is not {_kind_name(kind)}")
    if spec["number"] != int(NAME.fullmatch(folder.name)[1]):
        raise SetError(f"{where}: number = {spec['number']}, but the folder's name starts with "
                       f"{folder.name[:2]}: name it {spec['number']:02d}_..., or fix the number")
    if spec["lesson"] != f"lessons/{folder.name}.ipynb":
        raise SetError(f"{where}: lesson = {spec['lesson']!r}: a set's lesson is lessons/{folder.name}.ipynb (the "
                       "book, the notebook tests and conftest find a lesson's set by that name)")
    lesson = repo / spec["lesson"]
    if not lesson.is_file():
        raise SetError(f"{where}: lesson = {spec['lesson']!r}: no such file in the repository")
    for key in ("lesson_minutes", "grading_seconds"):
        if key in spec and not spec[key] > 0:
            raise SetError(f"{where}: {key} = {spec[key]!r} must be positive")
    if set(spec.get("launch", {})) - {"timeout", "collective_timeout"}:
        raise SetError(f"{where}: [launch] takes timeout and collective_timeout (what the sandbox's launch takes), "
                       f"got {sorted(spec['launch'])}")
    try:
        launch = LaunchPreset(**spec["launch"]) if "launch" in spec else None
    except (TypeError, ValueError) as exc:
        raise SetError(f"{where}: [launch]: {exc}") from None
    return ExerciseSet(name=folder.name, number=spec["number"], title=spec["title"], lesson=lesson,
                       lesson_minutes=spec["lesson_minutes"], solutions=repo / "solutions" / folder.name,
                       exercises=repo / "exercises" / folder.name, launch=launch,
                       ranks_import_dynamo=spec.get("ranks_import_dynamo", True),
                       grading_seconds=spec.get("grading_seconds"))


def _kind_name(kind) -> str:
    return {int: "an integer", str: "a string", bool: "true or false", dict: "a table",
            (int, float): "a number"}[kind]
