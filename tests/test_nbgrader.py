"""Round trips through the real nbgrader, for every exercise set of autograde/sets/ (generic: a new set only adds its
folder there, with its mutants and variants in it, mutants/ and variants/, and its notebooks).

    pytest tests/test_nbgrader.py

- exercises/ is what `nbgrader generate_assignment` makes of solutions/ now, without solution code or hidden tests;
- the instructor's grade command (autograde/grade.py, one `nbgrader autograde` call per group of students, graded
  side by side) gives full marks to the solutions filled into the student notebook and to every variant (a correct
  answer written differently from the reference), zero to the untouched student notebook, and takes points from
  every mutant (a known-wrong implementation) in the cells its header names; submissions that loop forever, do not
  compile or raise on one rank score zero there in bounded time, and the students after them are graded all the
  same; it writes a CSV and a feedback page per student.

A mutant file starts with comment lines that say what it is and what grading must find, then the cell's source:

    # replaces: <grade_id of a solution cell>
    # wrong: <what is wrong>
    # must-lose: <test cells that must score below their maximum>     (comma-separated; at least one of
    # must-zero: <test cells that must score 0>                        must-lose and must-zero)
    # must-keep: <test cells that must keep full marks>               (optional: shows the tests tell bugs apart)
    # max-seconds: <bound on the seconds grading this submission takes> (optional)

or, where that is shorter, an edit of the solution cell as released (marker lines removed): from a line starting
with `@@`, the hunks of a unified diff, applied when this file is read; an edit whose lines are no longer in the
solution cell stops the collection, naming the mutant file and the lines it looked for:

    # replaces: bubble_fraction
    # wrong: forgets the chunks: (p - 1)/m whatever v
    # must-lose: bubble_fraction_values
    @@ -5,3 +5,3 @@
             if not value > 0:
                 raise ValueError(f"{name} must be positive, got {value!r}")
    -    return (num_stages - 1) / (num_chunks * num_microbatches)
    +    return (num_stages - 1) / num_microbatches

Write a new mutant as a copy of the cell with the bug in, then `python tests/_mutants.py edit <file>` makes it an
edit when that is shorter (`copy` turns it back, `show` prints what it submits); tests/_mutants.py has the details.
The submitted cell is the file's text (the header's comment lines included), or the header and the edited cell.

To grade fewer notebooks, mutants of different solution cells share one submission when no test cell that judges
one of them can see the other's cell (found from the names each cell uses, through the submitted code); a mutant's
`must-keep` cells that can see another member's cell are then not checked for it. Mutants with `must-zero` or
`max-seconds` (whole-submission claims) are always graded alone.

A variant file (autograde/sets/<assignment>/variants/<name>.py) is a correct answer to one solution cell, written
otherwise than the reference (imported names, blocking messages, another chunking, a warning printed, numpy instead of
math...):

    # replaces: <grade_id of a solution cell>
    # differs: <how this correct answer differs from the reference>
    # needs: <a fix it waits for>                                      (optional: its test is an xfail until then)

Variant submission k holds the k-th variant (by name) of each solution cell; a cell with fewer variants keeps the
reference solution. Every test cell that can see a variant's cell must give it full marks. With the solution (and
exact copies of it, if there are fewer variant submissions than that) at least HONEST_MIN honest submissions are
graded in the same run as the mutants.

$DISTLAB_GRADING_JOBS sets how many groups of students are graded side by side (default 2).
"""
from __future__ import annotations

import ast
import csv
import functools
import importlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from _mutants import EditDoesNotApply, apply_edit, header_fields, make_edit, mutant_source, shortest_form

from autograde import notebooks, results, sets
from distlab import notebook_source

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.xdist_group("nbgrader")  # with pytest -n --dist loadgroup: one worker, one grading run

ASSIGNMENTS = notebooks.assignments()
JOBS = int(os.environ.get("DISTLAB_GRADING_JOBS", "2"))
SOLUTION, BLANK = "z-solution", "z-blank"  # sorted last: in each group, good submissions come after the bad ones
NOT_SUBMITTED, NOT_A_NOTEBOOK = "e-empty-folder", "e-not-a-notebook"
GRADE_TIMEOUT_S = 1500  # the whole grading run; it normally takes a few minutes
HONEST_MIN = 4  # honest submissions per grading run, all of which must score full marks, graded side by side
ISSUE_16_HONEST = 6  # and at least one set grades this many (issue 16; each copy of the solution costs CI ~10-25 s)


@dataclass
class Mutant:
    assignment: str
    name: str
    path: Path
    replaces: str
    wrong: str
    source: str  # what it submits as the cell: the file, or its header and its edit applied to the solution cell
    must_lose: list[str] = field(default_factory=list)
    must_zero: list[str] = field(default_factory=list)
    must_keep: list[str] = field(default_factory=list)
    max_seconds: float | None = None

    @property
    def alone(self) -> bool:
        return bool(self.must_zero) or self.max_seconds is not None


def parse_header(path: Path) -> dict[str, str]:
    """{key: value} of the comment lines that start a mutant or variant file ("# key: value", continued by "#" lines)."""
    return header_fields(path.read_text())


def parse_mutant(assignment: str, path: Path) -> Mutant:
    header = parse_header(path)
    names = lambda text: [n.strip() for n in text.split(",") if n.strip()]  # noqa: E731
    return Mutant(assignment, path.stem, path, replaces=header.get("replaces", ""), wrong=header.get("wrong", ""),
                  source=mutant_source(path), must_lose=names(header.get("must-lose", "")),
                  must_zero=names(header.get("must-zero", "")), must_keep=names(header.get("must-keep", "")),
                  max_seconds=float(header["max-seconds"]) if "max-seconds" in header else None)


MUTANTS = [parse_mutant(a, p) for a in ASSIGNMENTS for p in sorted((sets.get(a).folder / "mutants").glob("*.py"))]


def mutant_id(m: Mutant) -> str:
    return f"{m.assignment}/{m.name}"


@dataclass
class Variant:
    assignment: str
    name: str
    path: Path
    replaces: str
    differs: str
    needs: str = ""  # a fix this variant waits for (e.g. in distlab): until it lands, its test is an xfail

    @property
    def source(self) -> str:
        return self.path.read_text()


def parse_variant(assignment: str, path: Path) -> Variant:
    header = parse_header(path)
    return Variant(assignment, path.stem, path, replaces=header.get("replaces", ""), differs=header.get("differs", ""),
                   needs=header.get("needs", ""))


VARIANTS = [parse_variant(a, p) for a in ASSIGNMENTS for p in sorted((sets.get(a).folder / "variants").glob("*.py"))]


def variant_param(v: Variant):
    marks = [pytest.mark.xfail(reason=f"needs {v.needs}", strict=False)] if v.needs else []
    return pytest.param(v, id=f"{v.assignment}/{v.name}", marks=marks)


# --- which test cells can see which solution cells: packing mutants into shared submissions ----------------------

# Cached: packing asks about the same few hundred cells ~10,000 times (parsing each time took minutes of collection)
@functools.lru_cache(maxsize=None)
def _identifiers(source: str) -> frozenset[str]:
    try:
        return frozenset(node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name))
    except SyntaxError:
        return frozenset(re.findall(r"[A-Za-z_]\w*", source))


@functools.lru_cache(maxsize=None)
def _defined(source: str) -> frozenset[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset(re.findall(r"^(?:def|class)\s+(\w+)", source, re.M))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return frozenset(names)


def visible_solution_cells(test_source: str, solutions: dict[str, str],
                           handed_over: dict[str, list[str]] | None = None) -> set[str]:
    """The solution cells (grade_ids) whose names a test cell uses, directly or through other solution cells' code;
    not through the names the grader hands a function in place of the learner's (`handed_over`, a set's `EARLIER`:
    its checks run that function with the statement's versions of them)."""
    seen, names, changed = set(), _identifiers(test_source), True
    while changed:
        changed = False
        for gid, code in solutions.items():
            if gid not in seen and _defined(code) & names:
                seen.add(gid)
                names |= _identifiers(code) - set((handed_over or {}).get(gid, ()))
                changed = True
    return seen


@dataclass
class MutantSubmission:
    student: str
    members: list[Mutant]
    sees: dict[str, set[str]]  # {test grade_id: solution grade_ids it can see, with these mutants in}

    def judged_cells(self, mutant: Mutant) -> set[str]:
        """Test cells whose score can only come from `mutant` (they see no other member's solution cell)."""
        others = {m.replaces for m in self.members if m is not mutant}
        return {cell for cell, sees in self.sees.items() if not sees & others}


def _sees(assignment: str, members: list[Mutant]) -> dict[str, set[str]]:
    sources = notebooks.assignment_notebooks(assignment)
    solutions = {g: notebook_source.strip_solution_markers(c)
                 for s in sources for g, c in notebook_source.solution_cells(s).items()}
    solutions.update({m.replaces: m.source for m in members})
    tests = {notebook_source.grade_id(c): notebook_source.cell_source(c)
             for s in sources for c in notebook_source.read_notebook(s)["cells"]
             if notebook_source.nbgrader_metadata(c).get("grade")}
    handed_over = getattr(importlib.import_module(f"autograde.sets.{assignment}.checks"), "EARLIER", {})
    return {cell: visible_solution_cells(code, solutions, handed_over) for cell, code in tests.items()}


def pack_mutants(assignment: str, mutants: list[Mutant]) -> list[MutantSubmission]:
    """Mutants of different solution cells share a submission when each one's must-lose cells see only its own cell."""
    def fits(members):
        if len({m.replaces for m in members}) < len(members):
            return False
        sees = _sees(assignment, members)
        for m in members:
            others = {o.replaces for o in members if o is not m}
            if any(sees[cell] & others for cell in m.must_lose):
                return False
        return True

    packs: list[list[Mutant]] = []
    by_cell: dict[str, list[Mutant]] = {}
    for m in mutants:
        if m.alone:
            packs.append([m])
        else:
            by_cell.setdefault(m.replaces, []).append(m)
    shared: list[list[Mutant]] = []
    for group in sorted(by_cell.values(), key=len, reverse=True):
        for m in group:
            target = next((p for p in shared if fits(p + [m])), None)
            if target is None:
                shared.append([m])
            else:
                target.append(m)
    submissions = []
    for members in packs + shared:
        student = "m-" + "--".join(m.name.replace("_", "-") for m in members)
        submissions.append(MutantSubmission(student, members, _sees(assignment, members)))
    return submissions


PACKS = {a: pack_mutants(a, [m for m in MUTANTS if m.assignment == a]) for a in ASSIGNMENTS}


def submission_of(mutant: Mutant) -> MutantSubmission:
    return next(p for p in PACKS[mutant.assignment] if any(m is mutant for m in p.members))


@dataclass
class VariantSubmission:
    student: str
    members: list[Variant]
    sees: dict[str, set[str]]  # {test grade_id: solution grade_ids it can see, with these variants in}

    def cells_of(self, variant: Variant) -> set[str]:
        """The test cells that judge `variant`: those that can see its solution cell."""
        return {cell for cell, sees in self.sees.items() if variant.replaces in sees}

    def waiting(self) -> set[str]:
        """Test cells that can see a member waiting for a fix (`# needs:`): not required to give full marks yet."""
        return {cell for m in self.members if m.needs for cell in self.cells_of(m)}


def pack_variants(assignment: str, variants: list[Variant]) -> list[VariantSubmission]:
    """Submission k holds the k-th variant (by name) of each solution cell; the other cells keep the reference."""
    by_cell: dict[str, list[Variant]] = {}
    for v in sorted(variants, key=lambda v: v.name):
        by_cell.setdefault(v.replaces, []).append(v)
    count = max((len(vs) for vs in by_cell.values()), default=0)
    submissions = []
    for k in range(count):
        members = [vs[k] for vs in by_cell.values() if k < len(vs)]
        submissions.append(VariantSubmission(f"v-{k + 1}", members, _sees(assignment, members)))
    return submissions


VARIANT_PACKS = {a: pack_variants(a, [v for v in VARIANTS if v.assignment == a]) for a in ASSIGNMENTS}
# exact copies of the solution, as more students, when there are fewer variant submissions than HONEST_MIN - 1
COPIES = {a: [f"z-copy-{k + 1}" for k in range(HONEST_MIN - 1 - len(VARIANT_PACKS[a]))] for a in ASSIGNMENTS}


def variant_submission_of(variant: Variant) -> VariantSubmission:
    return next(p for p in VARIANT_PACKS[variant.assignment] if any(v is variant for v in p.members))


def honest_students(assignment: str) -> list[str]:
    return [SOLUTION, *COPIES[assignment], *(p.student for p in VARIANT_PACKS[assignment])]


# --- fixtures: one release and one grading run per assignment, shared by the tests -------------------------------

_GRADINGS: dict[str, "Grading"] = {}
_GRADING_FAILED: dict[str, str] = {}
_RELEASES: dict[str, Path] = {}


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """{assignment: folder} of what nbgrader generates from solutions/ now (the grading run's release when it ran
    already: it generated the assignment from the same solutions/ to fill its gradebook)."""
    def get(assignment: str) -> Path:
        if assignment in _GRADINGS:
            return _GRADINGS[assignment].work / "release" / assignment
        if assignment not in _RELEASES:
            tmp = tmp_path_factory.mktemp(f"release-{assignment}")
            _RELEASES[assignment] = notebooks.release(assignment, tmp / "release", tmp / "work")
        return _RELEASES[assignment]
    return get


@pytest.fixture(scope="module")
def graded(tmp_path_factory, released):
    """{assignment: Grading} from one run of the instructor's grade command over every kind of submission, built from
    the committed student notebook (what learners get), or a fresh release if there is none yet."""
    def get(assignment: str) -> Grading:
        if assignment in _GRADING_FAILED:  # graded once, and it failed: every test of the set says so, none re-grades
            pytest.fail(f"the grading run of {assignment} failed (see its first test): {_GRADING_FAILED[assignment]}")
        if assignment not in _GRADINGS:
            committed = notebooks.EXERCISES / assignment
            student_dir = committed if committed.is_dir() else released(assignment)
            try:
                _GRADINGS[assignment] = run_grading(assignment, tmp_path_factory.mktemp(f"grading-{assignment}"),
                                                    student_dir)
            except BaseException as exc:
                _GRADING_FAILED[assignment] = f"{type(exc).__name__}: {str(exc)[:300]}"
                raise
        return _GRADINGS[assignment]
    return get


@dataclass
class Grading:
    returncode: int
    output: str
    out: Path
    work: Path
    report: dict
    cells: dict  # {student: {grade_id: score}}, read from the gradebooks with nbgrader's API
    max_points: dict  # {grade_id: points}
    order: dict  # {student: (group, position in that group's autograde run)}


def run_grading(assignment: str, tmp: Path, student_dir: Path) -> Grading:
    submissions = tmp / "submissions"
    students = {SOLUTION: {}, **{copy: {} for copy in COPIES[assignment]},
                **{p.student: {m.replaces: m.source for m in p.members} for p in PACKS[assignment]},
                **{p.student: {v.replaces: v.source for v in p.members} for p in VARIANT_PACKS[assignment]}}
    for source in notebooks.assignment_notebooks(assignment):
        student_nb = student_dir / source.name
        for student, replacements in students.items():
            notebook_source.write_notebook(notebooks.make_submission(student_nb, source, replacements),
                                     submissions / student / source.name)
        blank = notebook_source.read_notebook(student_nb)  # the student notebook as released, untouched
        notebook_source.write_notebook(blank, submissions / BLANK / source.name)
        (submissions / NOT_A_NOTEBOOK).mkdir(parents=True, exist_ok=True)
        (submissions / NOT_A_NOTEBOOK / source.name).write_text("this is not a notebook")
    (submissions / NOT_SUBMITTED).mkdir()

    out, work = tmp / "out", tmp / "work"
    command = [sys.executable, "-m", "autograde.grade", assignment, str(submissions), "--out", str(out),
               "--work", str(work), "--jobs", str(JOBS)]
    env = {k: v for k, v in os.environ.items() if k != "PATH"} | {"PATH": "/usr/bin:/bin"}  # grade.py sets PATH itself
    result = subprocess.run(command, capture_output=True, text=True, timeout=GRADE_TIMEOUT_S, env=env, cwd=tmp)
    output = result.stdout + result.stderr
    assert (out / "grades.json").exists(), f"grade.py wrote no grades:\n{output}"
    report = json.loads((out / "grades.json").read_text())

    from nbgrader.api import Gradebook, MissingEntry

    cells, order = {}, {}
    for db in sorted(work.glob("**/gradebook.db")):
        with Gradebook(f"sqlite:///{db}") as gradebook:
            for student in gradebook.students:
                try:
                    submission = gradebook.find_submission(assignment, student.id)
                except MissingEntry:
                    continue
                cells[student.id] = {g.name: g.score for nb in submission.notebooks for g in nb.grades}
        log = (db.parent / "autograde.log")
        if log.exists():
            seen = re.findall(r"Sanitizing .*/submitted/([^/]+)/", log.read_text())
            for position, student in enumerate(dict.fromkeys(seen)):
                order[student] = (db.parent.name, position)
    max_points = {}
    for source in notebooks.assignment_notebooks(assignment):
        max_points.update(notebook_source.test_cells(source))
    return Grading(result.returncode, output, out, work, report, cells, max_points, order)


def describe(grading: Grading, student: str) -> str:
    info = grading.report["students"].get(student, {})
    return (f"{student}: status {info.get('status')}, {info.get('score')}/{info.get('max_score')} in "
            f"{info.get('seconds')} s; cells {grading.cells.get(student)}")


# --- the notebooks and the mutants (quick) ---------------------------------------------------------------------

@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_exercises_hold_no_solution_code_or_hidden_tests(assignment):
    for source in notebooks.assignment_notebooks(assignment):
        committed = notebooks.EXERCISES / assignment / source.name
        leaks = notebooks.leaked_lines(source, committed)
        assert not leaks, f"{committed.name} shows solution or hidden-test lines: {leaks}"
        student = notebook_source.read_notebook(committed)
        for grade_id, code in notebook_source.solution_cells(committed).items():
            assert "raise NotImplementedError()" in code, f"solution cell {grade_id} has no stub in {committed.name}"
        assert not any(c["cell_type"] == "code" and (c["outputs"] or c["execution_count"]) for c in student["cells"])


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_test_cell_has_a_trusted_check(assignment):
    """The grader decides each test cell with the check of the same grade_id in autograde/sets/<assignment>/checks.py
    (run where the student's code never ran): one check per test cell, none for a cell that is not there."""
    from autograde.sets._common import checks_of

    cells = {}
    for source in notebooks.assignment_notebooks(assignment):
        cells.update(notebook_source.test_cells(source))
    checks = checks_of(assignment)
    assert set(checks) == set(cells), (f"test cells without a check: {sorted(set(cells) - set(checks))}; checks "
                                       f"without a test cell: {sorted(set(checks) - set(cells))}")
    for name, fn in checks.items():
        assert (fn.__doc__ or "").strip(), f"autograde/sets/{assignment}/checks.py: {name} has no docstring"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_hidden_tests_live_in_the_trusted_checks(assignment):
    """A hidden-test block in a notebook would never run at grading (the grader runs the trusted checks instead)."""
    for source in notebooks.assignment_notebooks(assignment):
        text = source.read_text()
        assert notebooks.HIDDEN_TEST_MARKERS[0] not in text, (
            f"{source.name} still has hidden tests: move their cases to autograde/sets/{assignment}/checks.py")


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_solution_source_is_runnable_code(assignment):
    for source in notebooks.assignment_notebooks(assignment):
        for grade_id, raw in notebook_source.solution_cells(source).items():
            code = notebook_source.solution_source(source, grade_id)
            assert "### BEGIN SOLUTION" in raw and "### BEGIN SOLUTION" not in code and "### END SOLUTION" not in code
            compile(code, f"{source.name}#{grade_id}", "exec")
            namespace = notebook_source.load_solution(source, grade_id)
            assert callable(namespace.get(grade_id)) or any(callable(v) for v in namespace.values())
    with pytest.raises(KeyError):
        notebook_source.solution_source(notebooks.assignment_notebooks(assignment)[0], "no_such_cell")


@pytest.mark.parametrize("mutant", MUTANTS, ids=mutant_id)
def test_mutant_header_names_real_cells(mutant):
    sources = notebooks.assignment_notebooks(mutant.assignment)
    solutions = {g for s in sources for g in notebook_source.solution_cells(s)}
    tests = {g for s in sources for g in notebook_source.test_cells(s)}
    assert mutant.replaces in solutions, f"{mutant.path.name}: `# replaces:` must name one of {sorted(solutions)}"
    assert mutant.wrong, f"{mutant.path.name}: `# wrong:` must say what is wrong"
    assert mutant.must_lose or mutant.must_zero, f"{mutant.path.name}: no `# must-lose:` or `# must-zero:` cells"
    named = mutant.must_lose + mutant.must_zero + mutant.must_keep
    assert set(named) <= tests, f"{mutant.path.name} names unknown test cells {sorted(set(named) - tests)}"
    assert not set(mutant.must_keep) & set(mutant.must_lose + mutant.must_zero)


@pytest.mark.parametrize("mutant", MUTANTS, ids=mutant_id)
def test_mutant_is_an_edit_unless_a_copy_is_shorter(mutant):
    assert mutant.path.read_text() == shortest_form(mutant.path), (
        f"{mutant.path.name}: its shorter form is not the one stored: `python tests/_mutants.py edit {mutant.path}`")


def test_an_edit_gives_back_the_copy_and_names_what_it_cannot_find(tmp_path):
    cell = 'def f(x):\n    """Twice x."""\n\n    return 2 * x'
    wrong = 'def f(x):\n    """Twice x."""\n\n    return x\n'
    edit = make_edit(cell, wrong)
    assert edit == '@@ -2,3 +2,3 @@\n     """Twice x."""\n\n-    return 2 * x\n+    return x\n'  # a blank line: empty
    assert apply_edit(cell, edit, "f.py") == wrong
    assert apply_edit(cell, make_edit(cell, wrong[:-1]), "f.py") == wrong[:-1]  # no final newline: kept
    with pytest.raises(EditDoesNotApply, match=r"(?s)f\.py: hunk 1 .* are not in it.*\|     return 2 \* x"):
        apply_edit(cell.replace("2 * x", "x + x"), edit, "f.py")  # the solution changed
    with pytest.raises(EditDoesNotApply, match="stand in it 2 times"):
        apply_edit(cell + "\n" + cell, "@@ -4 +4 @@\n-    return 2 * x\n+    return x\n", "f.py")
    with pytest.raises(EditDoesNotApply, match="starts with 'x'"):
        apply_edit(cell, edit.replace("+    return x", "x    return x"), "f.py")
    mutant = tmp_path / ASSIGNMENTS[0] / "mutants" / "stale.py"  # as in a set's home: autograde/sets/<set>/mutants/
    mutant.parent.mkdir(parents=True)
    mutant.write_text(f"# replaces: {next(m.replaces for m in MUTANTS if m.assignment == ASSIGNMENTS[0])}\n"
                      "# wrong: an edit of a line that is not there\n@@ -1 +1 @@\n-no such line\n+x = 1\n")
    with pytest.raises(EditDoesNotApply, match=r"(?s)stale\.py: hunk 1 .*\| no such line"):
        mutant_source(mutant)
    mutant.write_text(mutant.read_text().replace("\n@@", "\n\n@@"))
    with pytest.raises(EditDoesNotApply, match="right after the header"):
        mutant_source(mutant)


def test_every_assignment_has_mutants():
    for assignment in ASSIGNMENTS:
        assert len([m for m in MUTANTS if m.assignment == assignment]) >= 5, f"{assignment}: fewer than 5 mutants"


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v.assignment}/{v.name}")
def test_variant_header_names_real_cells(variant):
    sources = notebooks.assignment_notebooks(variant.assignment)
    solutions = {g for s in sources for g in notebook_source.solution_cells(s)}
    assert variant.replaces in solutions, f"{variant.path.name}: `# replaces:` must name one of {sorted(solutions)}"
    assert variant.differs, f"{variant.path.name}: `# differs:` must say how it differs from the reference"
    assert variant.replaces in _defined(variant.source), f"{variant.path.name} does not define {variant.replaces}"
    compile(variant.source, str(variant.path), "exec")


def test_every_assignment_has_variants():
    for assignment in ASSIGNMENTS:
        assert len([v for v in VARIANTS if v.assignment == assignment]) >= 5, f"{assignment}: fewer than 5 variants"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_enough_honest_submissions(assignment):
    """The grading run grades at least HONEST_MIN honest submissions side by side (issue 16: --jobs 2 is fair)."""
    students = honest_students(assignment)
    assert len(students) == len(set(students)) >= HONEST_MIN
    for submission in VARIANT_PACKS[assignment]:
        assert len({v.replaces for v in submission.members}) == len(submission.members)


def test_some_set_grades_six_honest_submissions_side_by_side():
    """Issue 16: some grading run gives full marks to at least 6 honest submissions graded side by side (the sets with
    many variants have them without copies; the others have HONEST_MIN, which keeps CI short). Side by side means
    --jobs 2 when this file runs alone (the default), or sets graded at once by `./course test`'s three workers
    (which sets DISTLAB_GRADING_JOBS=1)."""
    assert max(len(honest_students(a)) for a in ASSIGNMENTS) >= ISSUE_16_HONEST


RNG_DRAWS = {
    "torch": {"rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "normal", "bernoulli",
              "multinomial", "poisson"},
    "random": {"random", "uniform", "randint", "randrange", "choice", "choices", "shuffle", "sample", "gauss",
               "normalvariate", "getrandbits"},
}
# The training the fault-tolerance checks run draws from the global generators on purpose (that is what they test):
# every check seeds them (seed_everything) or restores them from a checkpoint before it.
GLOBAL_RNG_ON_PURPOSE = {("03_fault_tolerance", "training_harness")}


def global_rng_draws(source: str) -> list[str]:
    """Calls in `source` that draw from a global random generator: torch.randn(...) without generator=, np.random.*,
    random.* (a seeded random.Random(...) or torch.Generator is fine)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        name, owner = node.func.attr, ast.unparse(node.func.value)
        if owner == "torch" and name in RNG_DRAWS["torch"] and not any(k.arg == "generator" for k in node.keywords):
            found.append(ast.unparse(node))
        elif owner in ("np.random", "numpy.random") and name not in ("seed", "get_state", "set_state", "default_rng"):
            found.append(ast.unparse(node))
        elif owner == "random" and name in RNG_DRAWS["random"]:
            found.append(ast.unparse(node))
    return found


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_checks_draw_from_their_own_generators(assignment):
    """A correct answer may draw random numbers (a layer it builds initialises its weights): the checks must not share
    the global generators with it, or that answer would see other inputs than the reference."""
    for source in notebooks.assignment_notebooks(assignment):
        for cell in notebook_source.read_notebook(source)["cells"]:
            meta = notebook_source.nbgrader_metadata(cell)
            if cell["cell_type"] != "code" or meta.get("solution") or (assignment, meta.get("grade_id")) in GLOBAL_RNG_ON_PURPOSE:
                continue
            draws = global_rng_draws(notebook_source.cell_source(cell))
            assert not draws, f"{source.name} cell {meta.get('grade_id')}: draws from a global generator: {draws}"


def test_global_rng_draws_are_found():
    assert global_rng_draws("x = torch.randn(3)\ny = np.random.randint(4)\nz = random.uniform(0, 1)") == [
        "torch.randn(3)", "np.random.randint(4)", "random.uniform(0, 1)"]
    assert global_rng_draws("g = torch.Generator().manual_seed(1)\nx = torch.randn(3, generator=g)\n"
                            "r = random.Random(5).random()\ntorch.manual_seed(0)\nnp.random.seed(1)") == []


# --- grading ----------------------------------------------------------------------------------------------------

@pytest.mark.timeout(GRADE_TIMEOUT_S + 300)
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_solution_scores_full_marks(assignment, graded):
    grading = graded(assignment)
    info = grading.report["students"][SOLUTION]
    assert info["status"] == "graded", describe(grading, SOLUTION) + "\n" + grading.output[-3000:]
    assert grading.cells[SOLUTION] == grading.max_points, describe(grading, SOLUTION)
    assert info["score"] == info["max_score"] == sum(grading.max_points.values()) > 0


@pytest.mark.timeout(GRADE_TIMEOUT_S + 300)
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_untouched_student_notebook_scores_zero(assignment, graded):
    grading = graded(assignment)
    assert grading.report["students"][BLANK]["status"] == "graded", describe(grading, BLANK)
    assert set(grading.cells[BLANK]) == set(grading.max_points)
    assert all(score == 0 for score in grading.cells[BLANK].values()), describe(grading, BLANK)


@pytest.mark.timeout(GRADE_TIMEOUT_S + 300)
@pytest.mark.parametrize("mutant", MUTANTS, ids=mutant_id)
def test_mutant_loses_points_where_expected(mutant, graded):
    grading = graded(mutant.assignment)
    submission = submission_of(mutant)
    student = submission.student
    info = grading.report["students"][student]
    about = f"mutant {mutant.path.name} ({mutant.wrong})\n{describe(grading, student)}"
    assert info["status"] == "graded", about
    scores = grading.cells[student]
    judged = submission.judged_cells(mutant)  # every cell, when the mutant is graded alone
    assert set(mutant.must_lose + mutant.must_zero) <= judged
    assert sum(scores[c] for c in judged) < sum(grading.max_points[c] for c in judged), "it kept full marks: " + about
    for cell in mutant.must_lose:
        assert scores[cell] < grading.max_points[cell], f"{cell} kept its {grading.max_points[cell]} points: {about}"
    for cell in mutant.must_zero:
        assert scores[cell] == 0, f"{cell} gave {scores[cell]} points: {about}"
    for cell in set(mutant.must_keep) & judged:
        assert scores[cell] == grading.max_points[cell], f"{cell} lost points, the tests confuse bugs: {about}"
    if mutant.max_seconds is not None:
        assert info["seconds"] is not None and info["seconds"] <= mutant.max_seconds, about


@pytest.mark.timeout(GRADE_TIMEOUT_S + 300)
@pytest.mark.parametrize("variant", [variant_param(v) for v in VARIANTS], ids=str)
def test_variant_scores_full_marks(variant, graded):
    """A correct answer written otherwise than the reference gets full marks in every test cell that judges it."""
    grading = graded(variant.assignment)
    submission = variant_submission_of(variant)
    student = submission.student
    about = f"variant {variant.path.name} ({variant.differs})\n{describe(grading, student)}"
    assert grading.report["students"][student]["status"] == "graded", about
    cells = submission.cells_of(variant) - (set() if variant.needs else submission.waiting())
    assert cells, f"no test cell judges {variant.replaces}"
    lost = {c: f"{grading.cells[student][c]}/{grading.max_points[c]}" for c in sorted(cells)
            if grading.cells[student][c] != grading.max_points[c]}
    assert not lost, f"a correct answer lost points in {lost}: {about}"


@pytest.mark.timeout(GRADE_TIMEOUT_S + 300)
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_grades_json_holds_only_the_declared_keys(assignment, graded):
    """grades.json is what autograde/results.py declares (an instructor's script reads it by those keys): every key
    of the run, of each student (graded, refused, not submitted) and of each test outcome."""
    report = graded(assignment).report
    assert set(report) <= results.REPORT_KEYS, f"undeclared: {set(report) - results.REPORT_KEYS}"
    for student, info in report["students"].items():
        assert set(info) <= results.STUDENT_KEYS, f"{student}: undeclared {set(info) - results.STUDENT_KEYS}"
        assert info["status"] in (results.GRADED, results.FAILED, results.NOT_SUBMITTED, results.INVALID_ID), student
        for cell, outcome in info.get("tests", {}).items():
            undeclared = set(outcome) - results.TEST_KEYS
            assert not undeclared, f"{student}, {cell}: undeclared {undeclared}"


@pytest.mark.timeout(GRADE_TIMEOUT_S + 300)
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_honest_submissions_score_full_marks(assignment, graded):
    """Every honest submission (the solution, its copies, each variant submission) gets full marks in every cell,
    graded side by side with the mutants (--jobs 2): at least HONEST_MIN of them."""
    grading = graded(assignment)
    waiting = {p.student: p.waiting() for p in VARIANT_PACKS[assignment]}
    students = honest_students(assignment)
    assert len(students) >= HONEST_MIN
    for student in students:
        assert grading.report["students"][student]["status"] == "graded", describe(grading, student)
        lost = {c for c, points in grading.max_points.items() if grading.cells[student][c] != points}
        assert lost <= waiting.get(student, set()), f"lost points in {sorted(lost)}: {describe(grading, student)}"


@pytest.mark.timeout(GRADE_TIMEOUT_S + 300)
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_grading_goes_on_after_a_bad_submission(assignment, graded):
    """Students graded after a looping / non-compiling / crashing one in the same nbgrader call are graded too."""
    grading = graded(assignment)
    bad = [p.student for p in PACKS[assignment] if any(m.must_zero for m in p.members)]
    assert bad, "no mutant with `# must-zero:` (a submission that loops, does not compile or crashes)"
    for student in bad:
        group, position = grading.order[student]
        after = [s for s, (g, p) in grading.order.items() if g == group and p > position]
        if JOBS <= 2:  # the two good submissions sort last: each group ends with one
            assert after, f"no student graded after {student} in its group {group}"
        for other in after:
            assert grading.report["students"][other]["status"] == "graded", describe(grading, other)


@pytest.mark.timeout(GRADE_TIMEOUT_S + 300)
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_grade_command_writes_csv_and_feedback(assignment, graded):
    grading = graded(assignment)
    assert grading.returncode == 1, "a submission nbgrader cannot read must make grade.py exit 1:\n" + grading.output
    with open(grading.out / "grades.csv", newline="") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    expected_students = ({BLANK, NOT_SUBMITTED, NOT_A_NOTEBOOK} | set(honest_students(assignment))
                         | {p.student for p in PACKS[assignment]})
    assert set(rows) == expected_students
    total = sum(grading.max_points.values())
    assert rows[SOLUTION]["status"] == "graded" and float(rows[SOLUTION]["score"]) == total
    assert float(rows[SOLUTION]["max_score"]) == total
    assert rows[NOT_SUBMITTED]["status"] == "not submitted" and float(rows[NOT_SUBMITTED]["score"]) == 0
    assert rows[NOT_A_NOTEBOOK]["status"] == "grading failed" and float(rows[NOT_A_NOTEBOOK]["score"]) == 0
    for cell, points in grading.max_points.items():
        assert float(rows[SOLUTION][cell]) == points and float(rows[BLANK][cell]) == 0
    for student, row in rows.items():
        if row["status"] != "graded":
            continue
        assert {c: float(row[c]) for c in grading.max_points} == grading.cells[student], student
        for source in notebooks.assignment_notebooks(assignment):
            page = grading.out / "feedback" / student / f"{source.stem}.html"
            assert page.exists(), f"no feedback page for {student}"
            html = page.read_text()
            assert "<html" in html and all(cell in html for cell in grading.max_points)
    assert "could not grade: " + NOT_A_NOTEBOOK in grading.output


# --- warnings are not errors -------------------------------------------------------------------------------------

WARNING_CELLS = {
    "warnings_cost_nothing": (True, '''"""Warnings from the kernel and from every rank, whole (a multi-line one too), cost no point."""
import warnings


def warn_on_ranks():
    t = torch.ones(4)
    copy = torch.tensor(t)  # torch's UserWarning (from C++), about this line
    gathered = torch.empty(4 * dist.get_world_size())
    dist.all_gather_into_tensor(gathered, t)  # a FutureWarning from inside torch
    warnings.warn("a warning\\nover two lines")
    return copy.sum().item() + gathered.sum().item()


assert distlab.launch(warn_on_ranks, 2, timeout=20, collective_timeout=5, backend="gloo") == [12.0, 12.0]
warnings.warn("a warning in the kernel", FutureWarning)
torch.tensor(torch.ones(2))  # torch's UserWarning, in the kernel
print("warned")'''),
    "printed_traceback_costs": (False, '''"""A rank prints the traceback of an error it swallowed, after a warning: a real error, the cell fails."""
import warnings


def print_an_error():
    import traceback

    warnings.warn("a warning first")
    try:
        raise ValueError("a real error")
    except ValueError:
        traceback.print_exc()
    return 1


distlab.launch(print_an_error, 2, timeout=20, collective_timeout=5, backend="gloo")'''),
    "rank_error_costs": (False, '''"""A rank raises after a warning: the cell fails."""
import warnings


def raise_after_warning():
    warnings.warn("a warning first")
    raise ValueError("a real error")


distlab.launch(raise_after_warning, 2, timeout=20, collective_timeout=5, backend="gloo", output="hide")'''),
}


def warnings_notebook(assignment: str) -> dict:
    """The assignment's student notebook cut down to its imports cell, followed by the cells of WARNING_CELLS."""
    released_path = notebooks.EXERCISES / assignment / notebooks.assignment_notebooks(assignment)[0].name
    released = notebook_source.read_notebook(released_path)
    imports = next(c for c in released["cells"] if notebook_source.grade_id(c) == "imports")
    cells = [imports]
    for grade_id, (_, source) in WARNING_CELLS.items():
        cells.append({"cell_type": "code", "execution_count": None, "id": grade_id, "outputs": [], "source": source,
                      "metadata": {"nbgrader": {"grade": True, "grade_id": grade_id, "locked": True, "points": 1,
                                                "schema_version": 3, "solution": False, "task": False}}})
    return {**released, "cells": cells}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_imports_cell_shows_kernel_warnings_on_stdout(assignment):
    """Each student notebook's imports cell sends the kernel's warnings to stdout, as the first one does (tested below)."""
    def hook(a):
        released = notebooks.EXERCISES / a / notebooks.assignment_notebooks(a)[0].name
        imports = next(c for c in notebook_source.read_notebook(released)["cells"]
                       if notebook_source.grade_id(c) == "imports")
        return [line for line in notebook_source.cell_source(imports).split("\n") if "warnings.showwarning" in line
                or "warnings.formatwarning" in line]
    assert len(hook(assignment)) == 2 and hook(assignment) == hook(ASSIGNMENTS[0])


@pytest.mark.timeout(600)
def test_warnings_pass_and_errors_fail_validate(tmp_path, assignment=ASSIGNMENTS[0]):
    """In the learner's Validate (nbgrader's Validator, with the notebook's own imports cell), a check whose ranks and
    kernel print warnings passes, and one with a real error (a printed traceback, a rank that raised) fails. The
    instructor's grading sees the same outputs: the variants that print warnings score full marks, and mutant
    avg_prints_swallowed_error loses its cell."""
    from nbgrader.validator import Validator

    path = tmp_path / "warnings.ipynb"
    notebook_source.write_notebook(warnings_notebook(assignment), path)
    results = Validator().validate(str(path))
    failed = {cell["source"].split("\n")[0]: cell["raw_error"] for cell in results.get("failed", [])}
    expected = {source.split("\n")[0] for passes, source in WARNING_CELLS.values() if not passes}
    assert set(failed) == expected, f"failed cells: {failed}"
    assert not set(results) - {"failed"}, results



@pytest.mark.parametrize("other_defines_the_grading_step", [True, False], ids=["another checkout", "broken import"])
def test_nbgrader_stops_unless_it_imports_this_checkouts_autograde(tmp_path, other_defines_the_grading_step):
    """nbgrader runs in autograde/ and imports `autograde` from the environment (nbgrader_config.py): another
    checkout's, or an import that fails, must end it. traitlets would log the error and run nbgrader with its
    defaults, its Execute included: every student's code unsandboxed, in the grader."""
    other = tmp_path / "other" / "autograde"
    other.mkdir(parents=True)
    if other_defines_the_grading_step:
        (other / "__init__.py").write_text("")
        (other / "sandboxed_execute.py").write_text("SandboxedExecute = None\n")
    else:  # an `autograde` whose import fails (a missing dependency, say)
        (other / "__init__.py").write_text("import a_module_that_is_not_installed\n")
    env = notebooks.nbgrader_env(tmp_path / "work") | {"PYTHONPATH": str(other.parent)}
    result = subprocess.run([sys.executable, "-m", "nbgrader", "db", "student", "list"], cwd=notebooks.AUTOGRADE,
                            env=env, capture_output=True, text=True, timeout=300)
    says = (f"`import autograde` gives {other}" if other_defines_the_grading_step
            else "No module named 'a_module_that_is_not_installed'")
    assert result.returncode != 0 and says in result.stderr, result.stdout + result.stderr
    assert not (tmp_path / "work" / "gradebook.db").exists()

# --- the release ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_exercises_are_what_nbgrader_generates_from_solutions(assignment, released):
    generated = released(assignment)
    for source in notebooks.assignment_notebooks(assignment):
        committed = notebooks.EXERCISES / assignment / source.name
        assert committed.exists(), f"{committed} is missing: run `python -m autograde.release {assignment}`"
        problems = notebooks.release_differences(committed, generated / source.name)
        assert not problems, (f"exercises/{assignment}/{source.name} is not what nbgrader generates from solutions/ "
                              f"(run `python -m autograde.release {assignment}` and commit both):\n  " + "\n  ".join(problems))
