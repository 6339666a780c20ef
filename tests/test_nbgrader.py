"""Round trips through the real nbgrader, for every exercise set in solutions/ (generic: a new lesson only adds its
notebook and its mutants in tests/mutants/<assignment>/).

    pytest tests/test_nbgrader.py

- exercises/ is what `nbgrader generate_assignment` makes of solutions/ now, without solution code or hidden tests;
- the instructor's grade command (autograde/grade.py, one `nbgrader autograde` call per group of students, graded
  side by side) gives full marks to the solutions filled into the student notebook, zero to the untouched student
  notebook, and takes points from every mutant (a known-wrong implementation) in the cells its header names;
  submissions that loop forever, do not compile or raise on one rank score zero there in bounded time, and the
  students after them are graded all the same; it writes a CSV and a feedback page per student.

A mutant file starts with comment lines that say what it is and what grading must find, then the cell's source:

    # replaces: <grade_id of a solution cell>
    # wrong: <what is wrong>
    # must-lose: <test cells that must score below their maximum>     (comma-separated; at least one of
    # must-zero: <test cells that must score 0>                        must-lose and must-zero)
    # must-keep: <test cells that must keep full marks>               (optional: shows the tests tell bugs apart)
    # max-seconds: <bound on the seconds grading this submission takes> (optional)

To grade fewer notebooks, mutants of different solution cells share one submission when no test cell that judges
one of them can see the other's cell (found from the names each cell uses, through the submitted code); a mutant's
`must-keep` cells that can see another member's cell are then not checked for it. Mutants with `must-zero` or
`max-seconds` (whole-submission claims) are always graded alone.

$DISTLAB_GRADING_JOBS sets how many groups of students are graded side by side (default 2).
"""
from __future__ import annotations

import ast
import csv
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from autograde import notebooks  # noqa: E402

pytestmark = pytest.mark.xdist_group("nbgrader")  # with pytest -n --dist loadgroup: one worker, one grading run

MUTANTS_DIR = REPO / "tests" / "mutants"
ASSIGNMENTS = notebooks.assignments()
JOBS = int(os.environ.get("DISTLAB_GRADING_JOBS", "2"))
SOLUTION, BLANK = "z-solution", "z-blank"  # sorted last: in each group, good submissions come after the bad ones
NOT_SUBMITTED, NOT_A_NOTEBOOK = "e-empty-folder", "e-not-a-notebook"
GRADE_TIMEOUT_S = 1500  # the whole grading run; it normally takes a few minutes


@dataclass
class Mutant:
    assignment: str
    name: str
    path: Path
    replaces: str
    wrong: str
    must_lose: list[str] = field(default_factory=list)
    must_zero: list[str] = field(default_factory=list)
    must_keep: list[str] = field(default_factory=list)
    max_seconds: float | None = None

    @property
    def source(self) -> str:
        return self.path.read_text()

    @property
    def alone(self) -> bool:
        return bool(self.must_zero) or self.max_seconds is not None


def parse_mutant(assignment: str, path: Path) -> Mutant:
    header = {}
    key = None
    for line in path.read_text().splitlines():
        found = re.match(r"#\s*([a-z-]+):\s*(.*)", line)
        if found:
            key = found.group(1)
            header[key] = found.group(2).strip()
        elif line.startswith("#") and key:  # a continuation line
            header[key] += " " + line.lstrip("#").strip()
        else:
            break
    names = lambda text: [n.strip() for n in text.split(",") if n.strip()]  # noqa: E731
    return Mutant(assignment, path.stem, path, replaces=header.get("replaces", ""), wrong=header.get("wrong", ""),
                  must_lose=names(header.get("must-lose", "")), must_zero=names(header.get("must-zero", "")),
                  must_keep=names(header.get("must-keep", "")),
                  max_seconds=float(header["max-seconds"]) if "max-seconds" in header else None)


MUTANTS = [parse_mutant(a, p) for a in ASSIGNMENTS for p in sorted((MUTANTS_DIR / a).glob("*.py"))]


def mutant_id(m: Mutant) -> str:
    return f"{m.assignment}/{m.name}"


# --- which test cells can see which solution cells: packing mutants into shared submissions ----------------------

def _identifiers(source: str) -> set[str]:
    try:
        return {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
    except SyntaxError:
        return set(re.findall(r"[A-Za-z_]\w*", source))


def _defined(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(re.findall(r"^(?:def|class)\s+(\w+)", source, re.M))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def visible_solution_cells(test_source: str, solutions: dict[str, str]) -> set[str]:
    """The solution cells (grade_ids) whose names a test cell uses, directly or through other solution cells' code."""
    seen, names, changed = set(), _identifiers(test_source), True
    while changed:
        changed = False
        for gid, code in solutions.items():
            if gid not in seen and _defined(code) & names:
                seen.add(gid)
                names |= _identifiers(code)
                changed = True
    return seen


@dataclass
class Submission:
    student: str
    members: list[Mutant]
    sees: dict[str, set[str]]  # {test grade_id: solution grade_ids it can see, with these mutants in}

    def judged_cells(self, mutant: Mutant) -> set[str]:
        """Test cells whose score can only come from `mutant` (they see no other member's solution cell)."""
        others = {m.replaces for m in self.members if m is not mutant}
        return {cell for cell, sees in self.sees.items() if not sees & others}


def _sees(assignment: str, members: list[Mutant]) -> dict[str, set[str]]:
    sources = notebooks.assignment_notebooks(assignment)
    solutions = {g: notebooks.strip_solution_markers(c) for s in sources for g, c in notebooks.solution_cells(s).items()}
    solutions.update({m.replaces: m.source for m in members})
    tests = {notebooks.grade_id(c): notebooks.cell_source(c) for s in sources for c in notebooks.read_notebook(s)["cells"]
             if notebooks.nbgrader_metadata(c).get("grade")}
    return {cell: visible_solution_cells(code, solutions) for cell, code in tests.items()}


def pack_mutants(assignment: str, mutants: list[Mutant]) -> list[Submission]:
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
        submissions.append(Submission(student, members, _sees(assignment, members)))
    return submissions


PACKS = {a: pack_mutants(a, [m for m in MUTANTS if m.assignment == a]) for a in ASSIGNMENTS}


def submission_of(mutant: Mutant) -> Submission:
    return next(p for p in PACKS[mutant.assignment] if any(m is mutant for m in p.members))


# --- fixtures: one release and one grading run per assignment, shared by the tests -------------------------------

_GRADINGS: dict[str, "Grading"] = {}
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
        if assignment not in _GRADINGS:
            committed = notebooks.EXERCISES / assignment
            student_dir = committed if committed.is_dir() else released(assignment)
            _GRADINGS[assignment] = run_grading(assignment, tmp_path_factory.mktemp(f"grading-{assignment}"),
                                                student_dir)
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
    students = {SOLUTION: {}, **{p.student: {m.replaces: m.source for m in p.members} for p in PACKS[assignment]}}
    for source in notebooks.assignment_notebooks(assignment):
        student_nb = student_dir / source.name
        for student, replacements in students.items():
            notebooks.write_notebook(notebooks.make_submission(student_nb, source, replacements),
                                     submissions / student / source.name)
        blank = notebooks.read_notebook(student_nb)  # the student notebook as released, untouched
        notebooks.write_notebook(blank, submissions / BLANK / source.name)
        (submissions / NOT_A_NOTEBOOK).mkdir(parents=True, exist_ok=True)
        (submissions / NOT_A_NOTEBOOK / source.name).write_text("this is not a notebook")
    (submissions / NOT_SUBMITTED).mkdir()

    out, work = tmp / "out", tmp / "work"
    command = [sys.executable, str(REPO / "autograde" / "grade.py"), assignment, str(submissions), "--out", str(out),
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
        max_points.update(notebooks.test_cells(source))
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
        student = notebooks.read_notebook(committed)
        for grade_id, code in notebooks.solution_cells(committed).items():
            assert "raise NotImplementedError()" in code, f"solution cell {grade_id} has no stub in {committed.name}"
        assert not any(c["cell_type"] == "code" and (c["outputs"] or c["execution_count"]) for c in student["cells"])


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_solution_source_is_runnable_code(assignment):
    for source in notebooks.assignment_notebooks(assignment):
        for grade_id, raw in notebooks.solution_cells(source).items():
            code = notebooks.solution_source(source, grade_id)
            assert "### BEGIN SOLUTION" in raw and "### BEGIN SOLUTION" not in code and "### END SOLUTION" not in code
            compile(code, f"{source.name}#{grade_id}", "exec")
            namespace = notebooks.load_solution(source, grade_id)
            assert callable(namespace.get(grade_id)) or any(callable(v) for v in namespace.values())
    with pytest.raises(KeyError):
        notebooks.solution_source(notebooks.assignment_notebooks(assignment)[0], "no_such_cell")


@pytest.mark.parametrize("mutant", MUTANTS, ids=mutant_id)
def test_mutant_header_names_real_cells(mutant):
    solutions = {g for s in notebooks.assignment_notebooks(mutant.assignment) for g in notebooks.solution_cells(s)}
    tests = {g for s in notebooks.assignment_notebooks(mutant.assignment) for g in notebooks.test_cells(s)}
    assert mutant.replaces in solutions, f"{mutant.path.name}: `# replaces:` must name one of {sorted(solutions)}"
    assert mutant.wrong, f"{mutant.path.name}: `# wrong:` must say what is wrong"
    assert mutant.must_lose or mutant.must_zero, f"{mutant.path.name}: no `# must-lose:` or `# must-zero:` cells"
    named = mutant.must_lose + mutant.must_zero + mutant.must_keep
    assert set(named) <= tests, f"{mutant.path.name} names unknown test cells {sorted(set(named) - tests)}"
    assert not set(mutant.must_keep) & set(mutant.must_lose + mutant.must_zero)


def test_every_assignment_has_mutants():
    for assignment in ASSIGNMENTS:
        assert len([m for m in MUTANTS if m.assignment == assignment]) >= 5, f"{assignment}: fewer than 5 mutants"


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
    expected_students = {SOLUTION, BLANK, NOT_SUBMITTED, NOT_A_NOTEBOOK} | {p.student for p in PACKS[assignment]}
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


# --- the release ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_exercises_are_what_nbgrader_generates_from_solutions(assignment, released):
    generated = released(assignment)
    for source in notebooks.assignment_notebooks(assignment):
        committed = notebooks.EXERCISES / assignment / source.name
        assert committed.exists(), f"{committed} is missing: run `python autograde/release.py {assignment}`"
        problems = notebooks.release_differences(committed, generated / source.name)
        assert not problems, (f"exercises/{assignment}/{source.name} is not what nbgrader generates from solutions/ "
                              f"(run `python autograde/release.py {assignment}` and commit both):\n  " + "\n  ".join(problems))
