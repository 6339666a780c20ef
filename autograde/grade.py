"""Grade a folder of submissions: each student's code runs in a sandbox, each test is decided by a trusted check.

    python -m autograde.grade 01_data_parallelism path/to/submissions [--jobs 2]    # to grading/01_data_parallelism/
    python -m autograde.grade 01_data_parallelism path/to/submissions --only alice   # regrade one into those results
    python -m autograde.grade 01_data_parallelism path/to/submissions --out grading/shard-3 --shard 3/10   # a part
    python -m autograde.merge grading/shard-* --out grading/all                                           # the whole

Submissions, one folder per student (the folder's name is the student id: letters, digits, `_ . @ -`):

    path/to/submissions/<student_id>/data_parallelism.ipynb              the notebook as the student saved it
    path/to/submissions/<student_id>/01_data_parallelism/data_parallelism.ipynb    (nbgrader's own layout, also read)

Writes, in --out (default grading/<assignment>/; never over another set's or another class's results), grades first:

    grades.csv                      one row per student: status, score, ..., flags, then a column per test cell
    report.txt                      per test, how many passed; per student, what to look at (also printed)
    grades.json                     the same with each test's outcome, the shard, the checks' secret seed (--only
                                    regrades with it), and what grading had to correct
    feedback/<student_id>/data_parallelism.html    the graded notebook: every check's output and score
    feedback/mathjax/               MathJax for the pages (no network)
    grading.log                     nbgrader's log (why a student's notebook could not be graded, if one could not)

How (autograde/README.md has the threat model): nbgrader keeps the bookkeeping (gradebook, feedback), but its
Execute step is autograde/sandboxed_execute.py: the student's cells run in bubblewrap (autograde/sandbox.py: no
repository, no gradebook, no other submission, no network, no secrets), and each test cell scores what the trusted
check autograde/sets/<assignment>/checks.py::<grade_id> decides, in the grader, from plain data. Without bubblewrap the
command refuses, unless --unsafe-no-sandbox (then the CSV's `sandbox` column says `none (unsafe)`).

Limits: --budget seconds per student (default 300: past it, the sandbox and everything in it is killed and the
remaining checks score 0), --cell-timeout seconds per notebook cell (default 60), --call-timeout seconds per call of
a check (default 60; a function past it is not run again), --max-restarts fresh sandboxes per check (default 2),
printed output capped per cell; --memory-gib, --tasks and --cpus for all of one student's processes together, in a
control group of its own where the system lets the grader make one (autograde/cgroup.py; grades.json's limits say
whether it did).

nbgrader's working state (gradebook.db, submitted/, autograded/, feedback/) goes to --work (default
autograde/work/<assignment>, git-ignored), which is emptied first. With --jobs N the students are split into N
groups graded side by side, each in one `nbgrader autograde` call with its own gradebook in --work/group-<k>; each
graded submission then goes into the set's one gradebook, --work/gradebook.db (autograde/gradebook.py), where
formgrader and `nbgrader export` read it and the instructor's manual scores count in grades.csv. One
notebook never stops another's grading: a folder holding a symbolic link, or over SUBMISSION_BYTES or
SUBMISSION_ENTRIES, is refused (grades.json's `reason`); each notebook is normalised first (autograde/normalise.py: a
cell pasted twice, empty nbgrader metadata, a test cell made markdown; the corrections are in grades.json, and what
it cannot read is refused with the reason), and a student nbgrader left ungraded with its group is graded again alone.
solutions/, exercises/, autograde/ and the submissions are hashed before and after: if anything changed, the
command says what and exits 3. A manual score or extra credit that appears in a gradebook while grading is reset;
the instructor's, in the set's gradebook as the run starts, are kept and put back over the regraded scores.

Exit status: 0 when every submission was graded, 1 when some could not be (the CSV still lists everyone), 2 on a
usage error (or no sandbox), 3 when grading changed a file it must not, 130 after Ctrl-C (every sandbox stopped, the
grades of the students graded so far written).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from distlab import notebook_source
from distlab.launching.deadline import Deadline
from distlab.launching.process_tree import kill_tree

from autograde import notebooks
from autograde.cgroup import StudentGroup
from autograde.limits import DEFAULT, SandboxLimits
from autograde.gradebook import gather, instructor_marks, reread
from autograde.integrity import FilesChanged, compare_hashes, reset_manual_scores, tree_hashes
from autograde.normalise import Refused, normalise_submission
from autograde.report import class_report, safe, summary_table, write_csv, write_json
from autograde.results import (FAILED, GRADED, INVALID_ID, NOT_SUBMITTED, SANDBOXED, SUBMITTED, UNSAFE,  # noqa: F401
                               ClassReport, StudentResult)
from autograde.seed import draw_seed

STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]*")
LOG_FORMAT = "%(asctime)s [%(name)s | %(levelname)s] %(message)s"
WORK_MARKER = ".distlab-grading-work"
SUBMISSION_BYTES = 2**30  # all the files of one student's folder together: set 03 invites checkpoints (~MBs each)
SUBMISSION_ENTRIES = 10_000  # files and folders in one student's folder


def main(argv=None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    args.out = args.out or Path("grading") / args.assignment
    work = checked_work(parser, args)
    from autograde.bwrap import sandbox_problem  # not autograde.sandbox: that imports torch (4 s)
    problem = None if args.unsafe_no_sandbox else sandbox_problem()
    if problem:
        parser.error(f"refusing to grade without a sandbox: {problem}. (--unsafe-no-sandbox grades anyway, without "
                     f"protection: only for code you trust)")
    limits = SandboxLimits.from_args(args).as_dict()
    try:
        report = grade(args.assignment, args.submissions, args.out, work, args.jobs, args.timeout, limits,
                       args.shard, only=args.only, due=args.due, late_penalty=args.late_penalty)
    except ResultsError as exc:
        parser.error(str(exc))
    except FilesChanged as exc:
        print(f"grading changed files it must not change:\n{exc}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:  # outside the grading itself (grade() handles that): before it, or in the feedback
        print("\ninterrupted (Ctrl-C): every nbgrader process and sandbox stopped; the grades are written before the "
              f"feedback pages are made, so {args.out / 'grades.csv'} holds them if it was the pages' turn",
              file=sys.stderr)
        return 130
    return tell_outcome(report, args.out)


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.split("\n")[2:]))
    parser.add_argument("assignment", help="e.g. 01_data_parallelism (a set of autograde/sets/)")
    parser.add_argument("submissions", type=Path, help="folder with one sub-folder per student")
    parser.add_argument("--out", type=Path, default=None,
                        help="where grades and feedback go (default: grading/<assignment>/); a folder holding "
                             "another set's or another class's grades is refused")
    parser.add_argument("--work", type=Path, help="nbgrader's work folder (default: autograde/work/<assignment>)")
    parser.add_argument("--jobs", type=int, default=1, help="grade this many students side by side (default 1)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds after which a whole `nbgrader autograde` call is stopped (default: none)")
    SandboxLimits.add_arguments(parser)  # --budget, --cell-timeout, ... --unsafe-no-sandbox
    parser.add_argument("--shard", type=parse_shard, default=(0, 1), metavar="K/N",
                        help="grade only part K of N (K from 0 to N-1; students in sorted order, every N-th); "
                             "combine the parts' --out folders with autograde/merge.py")
    parser.add_argument("--only", nargs="+", metavar="STUDENT",
                        help="regrade these students into the class's results in --out, with the class's recorded "
                             "seed: their rows and feedback pages are replaced, every other row is kept as it is")
    parser.add_argument("--due", type=parse_due, metavar="WHEN",
                        help="due date, e.g. '2026-12-01 23:59 UTC' (a time without zone is UTC): a submission whose "
                             "nbgrader timestamp.txt is later is flagged late (grades.csv's late column)")
    parser.add_argument("--late-penalty", type=float, default=0.0, metavar="FRACTION",
                        help="with --due: points taken per day late, started days, as a fraction of max_score "
                             "(default 0: late is flagged, the score kept); never below 0")
    return parser


def checked_work(parser: argparse.ArgumentParser, args) -> Path:
    """nbgrader's work folder for these arguments, once they are usable (else parser.error: exit status 2)."""
    if args.assignment not in notebooks.assignments():
        parser.error(f"no assignment {args.assignment!r} in autograde/sets/ (there are: {notebooks.assignments()})")
    if not args.submissions.is_dir():
        parser.error(f"no folder {args.submissions}")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    try:
        SandboxLimits.from_args(args)
    except ValueError as exc:
        parser.error(str(exc))
    work = (args.work or notebooks.DEFAULT_WORK / args.assignment).resolve()
    try:
        notebooks.check_nbgrader_path(work)
    except ValueError as exc:
        parser.error(str(exc))
    if work == notebooks.REPO or notebooks.REPO in work.parents and notebooks.DEFAULT_WORK not in [work, *work.parents]:
        parser.error(f"--work {work} is inside the repository: use autograde/work/ or a folder outside it")

    if work.exists() and any(work.iterdir()) and not (work / WORK_MARKER).exists():
        parser.error(f"--work {work} is not empty and was not made by grade.py: pass a new or empty folder")
    submissions = args.submissions.resolve()
    if work in [submissions, *submissions.parents] or submissions in work.parents:
        parser.error(f"--work {work} and the submissions folder {submissions} must not contain each other")
    return work


def tell_outcome(report: ClassReport, out: Path) -> int:
    """Print the summary and where the files are; the exit status: 1 when a submission could not be graded."""
    print(summary_table(report))
    print("\n" + class_report(report))
    failed = [safe(s) for s, r in report["students"].items() if r["status"] == FAILED]
    print(f"grades: {out / 'grades.csv'}   report: {out / 'report.txt'}   feedback: {out / 'feedback'}/<student_id>/")
    if report.get("interrupted"):
        print(f"interrupted (Ctrl-C): the sandboxes were stopped; {out / 'grades.csv'} holds the students graded "
              f"before, the others are 'grading failed' (run the same command again, or --only them)", file=sys.stderr)
        return 130
    if failed:
        print(f"could not grade: {', '.join(failed)} (see {out / 'grading.log'})", file=sys.stderr)
    return 1 if failed else 0


def parse_shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard takes K/N, e.g. 3/10; got {text!r}") from None
    if not (n >= 1 and 0 <= k < n):
        raise argparse.ArgumentTypeError(f"--shard K/N needs N >= 1 and 0 <= K < N; got {text!r}")
    return k, n


def as_utc(text: str) -> datetime:
    """A date and time, read as nbgrader reads them (`parse_utc`: a time without a zone is UTC), zone attached."""
    from nbgrader.utils import parse_utc
    return parse_utc(text).replace(tzinfo=timezone.utc)


def parse_due(text: str) -> float:
    """A due date as a POSIX timestamp (nbgrader's parser: a time without a zone is UTC)."""
    try:
        return as_utc(text).timestamp()
    except Exception:  # noqa: BLE001 - dateutil raises several kinds
        raise argparse.ArgumentTypeError(f"--due takes a date and time, e.g. '2026-12-01 23:59 UTC'; got {text!r}") \
            from None


def grade(assignment: str, submissions: Path, out: Path, work: Path, jobs: int = 1,
          timeout: float | None = None, limits: dict | None = None, shard: tuple[int, int] = (0, 1),
          only: list[str] | None = None, due: float | None = None, late_penalty: float = 0.0,
          seed: int | None = None) -> ClassReport:
    """Grade every student folder of `submissions` (or part `shard` = (K, N) of them, or the students `only`, into the
    class's results already in `out`); write grades.csv, grades.json, report.txt, feedback/, grading.log to `out`.

    Grades are written before feedback pages are made; Ctrl-C stops the sandboxes and writes what was graded."""
    limits = with_defaults(limits)
    names = [p.stem for p in notebooks.assignment_notebooks(assignment)]
    everyone = collect(submissions, assignment, names)
    students = dict(everyone)
    previous = checked_results(out, assignment, submissions, only, shard)
    class_db = work / "gradebook.db"  # the set's one gradebook, whatever --jobs or --only (autograde/gradebook.py)
    if only:
        missing = [s for s in only if s not in students]
        if missing:
            raise ResultsError(f"--only: no folder {', '.join(missing)} in {submissions}")
        students = {s: {**students[s], "regraded_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
                    for s in only}
        seed = previous["seed"]
        work = work / "regrade"  # the class's own gradebook, in `work`, is kept
    students = {s: info for i, (s, info) in enumerate(students.items()) if i % shard[1] == shard[0]}
    explain_missing(students, submissions, assignment, names)
    if seed is None:  # $DISTLAB_GRADING_SEED replays a run, as autograde/try_checks.py does
        seed = draw_seed()
    guarded = [notebooks.SOLUTIONS, notebooks.EXERCISES, notebooks.AUTOGRADE, submissions.resolve()]
    unread = [work, out.resolve(), *(submissions.resolve() / s for s, i in everyone.items() if i["status"] == FAILED)]
    before = tree_hashes(guarded, skip=unread)  # a refused folder is never read, not even to hash it
    marks = instructor_marks(class_db, assignment)  # manual marks set before this run are the instructor's
    stage(assignment, work)
    (work / SEED_FILE).write_text(f"{seed}\n")  # the checks read it here: never in an environment a sandbox sees
    (work / SEED_FILE).chmod(0o600)
    out.mkdir(parents=True, exist_ok=True)
    submitted = [s for s, info in students.items() if info["status"] == SUBMITTED]
    groups = split_groups(submitted, jobs, work)
    interrupted = False
    with open(out / ("grading-regrade.log" if only else "grading.log"), "w") as log:
        try:
            _log(log, f"grading {assignment}: {len(submitted)} submission(s) in {len(groups)} group(s); "
                      f"work folder {work}")
            record_assignment(assignment, groups, work, log, class_db)
            hand_in(students, groups, assignment)
            for student, info in students.items():
                if info.get("reason"):
                    _log(log, f"{safe(student)}: {FAILED}: {info['reason']}")
            logs = autograde_groups(assignment, students, groups, work, timeout, limits, log)
        except KeyboardInterrupt:
            interrupted, logs = True, {}
            _log(log, "interrupted (Ctrl-C): every sandbox stopped; writing the grades of those graded")
        keep_group_logs(groups, log, ["autograde*.log"])
    corrections = collect_scores(students, groups, assignment, logs, limits, interrupted)
    gather(students, groups, class_db, assignment, marks)
    mark_late(students, due, late_penalty)
    cells = points_per_cell(assignment)
    report = {"assignment": assignment, "submissions": str(submissions.resolve()), "cells": cells,
              "students": students, "max_score": sum(cells.values()), "shard": list(shard), "limits": limits,
              "seed": seed, "due": due, "late_penalty": late_penalty, "gradebook_corrections": corrections,
              "interrupted": interrupted}
    if only:
        report = {**previous, "students": dict(sorted({**previous["students"], **students}.items())),
                  "gradebook_corrections": previous.get("gradebook_corrections", []) + corrections,
                  "interrupted": interrupted}
        others = reread(report["students"], assignment, [s for s in report["students"] if s not in students])
        mark_late({s: report["students"][s] for s in others}, previous.get("due"), previous.get("late_penalty") or 0)
    write_report(report, out)  # grades first: a feedback page that fails or hangs costs no grade
    if not interrupted:
        with open(out / ("grading-regrade.log" if only else "grading.log"), "a") as log:
            make_feedback(assignment, students, groups, work, out, log, full=not only)
    changed = compare_hashes(before, tree_hashes(guarded, skip=unread))
    if changed:
        raise FilesChanged("\n".join(changed))
    return report


class ResultsError(ValueError):
    """--out holds results this run must not overwrite, or --only has nothing to regrade into."""


SEED_FILE = "grading-seed"  # in the work folder: the checks' secret seed ($DISTLAB_GRADING_SEED_FILE names it)
# generate_feedback's time bound, before fallback pages: nbgrader's start (~10 s, more on a loaded machine) and a page
# per student (~1-2 s; a student's markdown is bounded to PAGE_RENDER_S of rendering, autograde/feedback_html.py)
FEEDBACK_START_S, FEEDBACK_S_PER_STUDENT = 120.0, 60.0


def checked_results(out: Path, assignment: str, submissions: Path, only, shard) -> ClassReport:
    """The class's results already in `out` ({} if none), once this run may write there: never another set's or
    another class's; --only needs the class's results (and its recorded seed)."""
    path = out / "grades.json"
    if not path.exists():
        if only:
            raise ResultsError(f"--only regrades into a class's results, and {out} has none (no grades.json): "
                               f"grade the class first, or pass its --out")
        return {}
    try:
        previous = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path} is not a grades.json grade.py wrote ({exc}): pass another --out") from None
    if previous.get("assignment") != assignment:
        raise ResultsError(f"{out} holds the grades of {previous.get('assignment')!r}, not {assignment!r}: pass "
                           f"another --out (the default is grading/<assignment>/)")
    theirs = previous.get("submissions")
    if theirs is not None and theirs != str(submissions.resolve()):
        raise ResultsError(f"{out} holds the grades of another class (submissions from {theirs}): pass another "
                           f"--out, or delete {out} first")
    if only:
        if previous.get("seed") is None:
            raise ResultsError(f"{path} records no seed (graded before seeds were recorded, or merged from shards "
                               f"with different seeds): regrade the whole class")
        if tuple(shard) != (0, 1):
            raise ResultsError("--only and --shard do not go together")
    return previous


def explain_missing(students: dict[str, StudentResult], submissions: Path, assignment: str, names: list[str]) -> None:
    """A `reason` for each student folder that holds nothing to grade: which characters make its id invalid, which
    notebook files it holds instead of the expected ones."""
    for student, info in students.items():
        try:
            if info["status"] == INVALID_ID:
                info["reason"] = invalid_id_reason(student)
            elif info["status"] == NOT_SUBMITTED:
                expected = ", ".join(f"{n}.ipynb" for n in names)
                found = sorted(str(p.relative_to(submissions / student)) for p in
                               [*(submissions / student).glob("*.ipynb"),
                                *(submissions / student / assignment).glob("*.ipynb")])
                info["reason"] = (f"expected {expected}, found {', '.join(repr(f) for f in found[:5])}: rename it"
                                  if found else f"expected {expected}; the folder holds no notebook")
        except Exception as exc:  # noqa: BLE001 - a hint is never worth a class
            info["reason"] = f"could not look into the folder: {exc!r}"


def invalid_id_reason(student: str) -> str:
    """Why `student` (a folder name) is not a student id."""
    rule = "an id is letters, digits and _ . @ - (the first a letter or digit)"
    if student != safe(student):
        return f"the folder name {safe(student)!r} is not UTF-8 (as some archive tools write): rename it; {rule}"
    bad = sorted({ch for ch in student if not re.fullmatch(r"[A-Za-z0-9_.@-]", ch)})
    if bad:
        shown = ", ".join("a space" if ch == " " else repr(ch) for ch in bad)
        return f"{student!r} holds {shown}: {rule}"
    return f"{student!r} starts with {student[:1]!r}: {rule}"


def mark_late(students: dict[str, StudentResult], due: float | None, late_penalty: float) -> None:
    """With a due date, `late_s` of each student with a timestamp; the rule: late_penalty x max_score per started day
    late is taken off (the score never below 0; score_before_late_penalty keeps the autograder's)."""
    for info in students.values():
        if due is None or info.get("submitted_at_s") is None:
            continue
        info["late_s"] = late = round(info["submitted_at_s"] - due, 1)
        if late > 0 and late_penalty > 0 and info.get("status") == GRADED:
            info["score_before_late_penalty"] = info["score"]
            penalty = late_penalty * info["max_score"] * math.ceil(late / 86400)
            info["score"] = max(info["score"] - penalty, 0.0)


def make_feedback(assignment: str, students: dict[str, StudentResult], groups: list[Group], work: Path, out: Path, log,
                  full: bool) -> None:
    """The feedback pages, after the grades: `nbgrader generate_feedback` with a time bound (a page not made in time
    is an escaped page of scores and outputs), MathJax served from out/feedback/mathjax."""
    biggest = max((len(g.students) for g in groups), default=0)
    timed = run_groups(["generate_feedback", assignment, "--force"], groups, work,
                       FEEDBACK_START_S + FEEDBACK_S_PER_STUDENT * biggest)
    keep_group_logs(groups, log, ["generate_feedback.log"])
    if full and (out / "feedback").is_dir():
        shutil.rmtree(out / "feedback")  # no page of a student graded in an earlier run stays
    copy_feedback(students, groups, assignment, out, fallback=any("stopped after" in t for t in timed.values()))


@dataclass
class Group:
    """Students graded side by side with others' groups: one `nbgrader autograde` call, in a work folder of its own
    (its own gradebook)."""
    folder: Path
    students: list[str]


def with_defaults(limits: dict | None) -> dict:
    """The limits of one student's sandbox, the defaults filled in, and which control group grading here gets."""
    limits = {**DEFAULT.as_dict(), **(limits or {})}
    limits["control_group"] = (StudentGroup.available(limits["memory_bytes"], limits["tasks"], limits["cpus"] or None)
                               if limits["sandbox"] else "none: no sandbox")
    return limits


def stage(assignment: str, work: Path) -> None:
    """An empty work folder, marked as grade.py's, with nbgrader's source folder: a private copy of the assignment's
    notebooks only (nbgrader copies a source folder's other files into every student's folder)."""
    if work.exists():  # our own work folder from an earlier run (main() checked the marker)
        shutil.rmtree(work)
    work.mkdir(parents=True)
    (work / WORK_MARKER).write_text("nbgrader work folder of autograde/grade.py: emptied at each run\n")
    source = work / "source"
    for path in notebooks.assignment_notebooks(assignment):
        (source / assignment).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, source / assignment / path.name)


def split_groups(students: list[str], jobs: int, work: Path) -> list[Group]:
    """`students` dealt into at most `jobs` groups (one, empty, when there is no one); one group works in `work`."""
    groups = [students[k::jobs] for k in range(min(jobs, len(students)))] or [[]]
    folders = [work / f"group-{k}" for k in range(len(groups))] if len(groups) > 1 else [work]
    return [Group(folder, group) for folder, group in zip(folders, groups)]


def record_assignment(assignment: str, groups: list[Group], work: Path, log, class_db: Path) -> None:
    """One `nbgrader generate_assignment` records the assignment in the first group's gradebook; the others copy it,
    and so does the set's gradebook `class_db` if there is none yet."""
    first = groups[0].folder
    done = notebooks.run_nbgrader(["generate_assignment", assignment, "--force",
                                   f"--Application.log_format={LOG_FORMAT}"],
                                  work=first, source_dir=work / "source", release_dir=work / "release", log=log)
    if done.returncode != 0:
        raise SystemExit(f"nbgrader generate_assignment failed; see {log.name}")
    for group in groups[1:]:
        group.folder.mkdir(parents=True)
        shutil.copy(first / "gradebook.db", group.folder / "gradebook.db")
    if not class_db.exists():
        shutil.copy(first / "gradebook.db", class_db)


def hand_in(students: dict[str, StudentResult], groups: list[Group], assignment: str) -> None:
    """Each student's notebooks into its group's submitted/ folder, normalised (the corrections go in `students`);
    a student whose notebook normalise refuses leaves its group, FAILED, with the reason."""
    sources = {path.stem: path for path in notebooks.assignment_notebooks(assignment)}
    for group in groups:
        for student in list(group.students):
            corrections = []
            try:
                for name, path in students[student]["files"].items():
                    dest = group.folder / "submitted" / student / assignment / f"{name}.ipynb"
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    corrected = normalise_submission(path, dest, sources.get(name))  # what would stop nbgrader
                    corrections += [f"{name}: {c}" for c in corrected]
            except Refused as exc:
                students[student].update(status=FAILED, reason=f"{name}.ipynb: {exc}")
                group.students.remove(student)
                shutil.rmtree(group.folder / "submitted" / student)
                continue
            students[student].setdefault("corrections", []).extend(corrections)
            keep_timestamp(students[student], students[student]["files"],
                           group.folder / "submitted" / student / assignment)


def keep_timestamp(info: dict, files: dict, dest: Path) -> None:
    """nbgrader collect's timestamp.txt (beside the notebook, or in the student's folder) into nbgrader's submitted/
    folder, so that the gradebook has it, and as `submitted_at` in the report; a malformed one is ignored, and said."""
    for path in files.values():
        for candidate in (Path(path).parent / "timestamp.txt", Path(path).parent.parent / "timestamp.txt"):
            if candidate.is_file() and not candidate.is_symlink():
                text = candidate.read_text(errors="replace")[:100].strip()
                try:
                    when = as_utc(text)
                except Exception:  # noqa: BLE001
                    info.setdefault("corrections", []).append(f"timestamp.txt is not a time: {text!r} (ignored)")
                    return
                (dest / "timestamp.txt").write_text(text + "\n")
                info["submitted_at"], info["submitted_at_s"] = when.isoformat(), when.timestamp()
                return


def autograde_groups(assignment: str, students: dict[str, StudentResult], groups: list[Group], work: Path, timeout,
                     limits: dict, log) -> dict:
    """`nbgrader autograde` in every group at once, with the sandbox's limits; {group folder: its log text}."""
    started = time.time()
    sandboxed = SandboxLimits(**{k: v for k, v in limits.items() if k != "control_group"}).nbgrader_options()
    progress = Progress(sum(len(students[s]["files"]) for g in groups for s in g.students), log)
    logs = run_groups(["autograde", assignment, "--force", *sandboxed], groups, work, timeout, progress=progress)
    # nbgrader gives up on a group at some errors: whoever it left ungraded is graded again, each student alone
    for group in groups:
        ungraded = [s for s in group.students if not _autograded(group.folder, assignment, s, students[s]["files"])]
        for student in ungraded:
            if len(group.students) == 1:
                continue  # graded alone already
            _log(log, f"{student} was not graded with its group: graded alone")
            alone = Group(group.folder, [student])
            logs[group.folder] = logs.get(group.folder, "") + f"{RUN_BOUNDARY} {student} alone\n" + run_groups(
                ["autograde", assignment, "--force", f"--student={student}", *sandboxed], [alone], work, timeout,
                log_name=f"autograde-alone-{student}", progress=progress)[group.folder]
    _log(log, f"autograde took {time.time() - started:.1f} s")
    return logs


def _autograded(folder: Path, assignment: str, student: str, files: dict) -> bool:
    return all((folder / "autograded" / student / assignment / f"{name}.ipynb").exists() for name in files)


def collect(submissions: Path, assignment: str, names: list[str]) -> dict[str, StudentResult]:
    """{student_id: {"status", "files": {notebook name: path}}} for each folder in `submissions`. A folder that
    holds a symbolic link (or is one), anything but files and folders, more than SUBMISSION_BYTES or more than
    SUBMISSION_ENTRIES is refused without reading a file of it: status FAILED, and a "reason" that says why."""
    students = {}
    with os.scandir(submissions) as entries:
        folders = sorted((e.name, Path(e.path)) for e in entries if not e.name.startswith(".") and e.is_dir())
    for student, folder in folders:  # is_dir() follows a link: a linked folder is refused below, by name
        if not STUDENT_ID.fullmatch(student):
            students[student] = {"status": INVALID_ID, "files": {}}
            continue
        try:
            problem = folder_problem(folder)
            files = {} if problem else notebook_files(folder, assignment, names)
        except OSError as exc:
            problem, files = f"its folder could not be read ({exc.strerror}: {exc.filename!r})", {}
        if problem:
            students[student] = {"status": FAILED, "files": {}, "reason": problem}
        else:
            students[student] = {"status": SUBMITTED if files else NOT_SUBMITTED, "files": files}
    return students


def folder_problem(folder: Path) -> str | None:
    """Why a student's folder cannot be graded, or None: it is walked without following anything (a link to a
    classmate's notebook or to /proc/self/cwd/solutions/ would be read as the grader), to the first problem."""
    if folder.is_symlink():
        return f"the folder is a symbolic link (to {os.readlink(folder)!r}): a submission may hold no links"
    count, size, stack = 0, 0, [folder]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                shown, info = os.path.relpath(entry.path, folder), entry.stat(follow_symlinks=False)
                if stat.S_ISLNK(info.st_mode):
                    return (f"{shown!r} is a symbolic link (to {os.readlink(entry.path)!r}): a submission may hold "
                            f"no links")
                if stat.S_ISDIR(info.st_mode):
                    stack.append(entry.path)
                elif stat.S_ISREG(info.st_mode):
                    size += info.st_size  # the size a reader reads: a sparse file counts whole
                else:
                    return f"{shown!r} is not a file or a folder ({stat.filemode(info.st_mode)})"
                count += 1
                if count > SUBMISSION_ENTRIES:
                    return f"it holds more than {SUBMISSION_ENTRIES:,} files and folders, the most a submission may"
                if size > SUBMISSION_BYTES:
                    return f"its files hold more than {SUBMISSION_BYTES / 2**30:g} GiB, the most a submission may"
    return None


def notebook_files(folder: Path, assignment: str, names: list[str]) -> dict[str, Path]:
    """{notebook name: path} of the assignment's notebooks in a student's folder (checked: it holds no link)."""
    files, inside = {}, folder.resolve()
    for name in names:
        for candidate in (folder / f"{name}.ipynb", folder / assignment / f"{name}.ipynb"):
            if candidate.is_file() and inside in candidate.resolve().parents:
                files[name] = candidate
                break
    return files


def run_groups(args: list[str], groups: list[Group], work: Path, timeout, log_name: str = "",
               progress=None) -> dict:
    """Run `nbgrader <args>` in every group's folder at once; return {folder: its log text} (the log: log_name, or
    the command's name, .log in the folder). `progress(text)` is given each group's new log text as it comes. Every
    nbgrader process is stopped on the way out, Ctrl-C included."""
    procs, log_name = [], log_name or args[0]
    try:
        for group in groups:
            if not group.students:
                continue
            log = open(group.folder / f"{log_name}.log", "w")
            env = notebooks.nbgrader_env(group.folder, source_dir=work / "source", release_dir=work / "release")
            env.pop("DISTLAB_GRADING_SEED", None)  # the seed goes by a file the sandboxes cannot read
            env["DISTLAB_GRADING_SEED_FILE"] = str(work / SEED_FILE)
            # nbgrader's api.py makes SQLAlchemy warn three times a student ("Object of type <SubmittedNotebook> not
            # in session"): nothing an instructor can act on
            env["PYTHONWARNINGS"] = "ignore:Object of type:Warning"
            command = [sys.executable, "-m", "nbgrader", *args, f"--Application.log_format={LOG_FORMAT}"]
            proc = subprocess.Popen(command, cwd=notebooks.AUTOGRADE, env=env, stdout=log, stderr=subprocess.STDOUT,
                                    text=True, start_new_session=True)
            procs.append((group.folder, proc, log))
        deadline = None if timeout is None else Deadline.after(timeout)
        read = {folder: 0 for folder, _, _ in procs}
        while any(proc.poll() is None for _, proc, _ in procs):
            if deadline is not None and deadline.passed():
                for folder, proc, log in procs:
                    if proc.poll() is None:
                        log.write(f"\n[grade.py] stopped after the --timeout of {timeout:g} s\n")
                break
            time.sleep(0.5)
            if progress is not None:
                for folder, _, _ in procs:
                    read[folder] = _follow(folder / f"{log_name}.log", read[folder], progress)
        if progress is not None:
            for folder, _, _ in procs:
                _follow(folder / f"{log_name}.log", read[folder], progress)
    finally:
        for _, proc, log in procs:
            kill_tree(proc)
            log.close()
    return {folder: (folder / f"{log_name}.log").read_text(errors="replace") for folder, _, _ in procs}


def _follow(path: Path, offset: int, progress) -> int:
    """Give `progress` the complete lines of `path` past `offset`; the new offset."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            text = f.read()
    except OSError:
        return offset
    complete = text[:text.rfind(b"\n") + 1]
    if complete:
        progress(complete.decode(errors="replace"))
    return offset + len(complete)


class Progress:
    """One line per student as its notebook is graded: `[3/8] alice: ran in its sandbox in 4.2 s`."""

    def __init__(self, total: int, log):
        self.total, self.done, self.log = total, 0, log

    def __call__(self, text: str) -> None:
        for found in re.finditer(r"graded (\S+) in the sandbox in ([\d.]+) s", text):
            self.done += 1
            _log(self.log, f"[{self.done}/{self.total}] {safe(found.group(1))}: ran in its sandbox in "
                           f"{found.group(2)} s")


def keep_group_logs(groups: list[Group], log, patterns: list[str]) -> None:
    """Every group's nbgrader output (its logs matching `patterns`), appended to the one log."""
    for group in groups:
        folder = group.folder
        for path in [p for pattern in patterns for p in sorted(folder.glob(pattern))]:
            log.write(f"\n===== {folder.name}: {path.name} =====\n" + path.read_text(errors="replace"))


def collect_scores(students: dict[str, StudentResult], groups: list[Group], assignment: str, logs: dict, limits: dict,
                   interrupted: bool = False) -> list[str]:
    """Each submitted student's scores, seconds, per-test outcomes and gradebook from its group's gradebook, and its
    status: GRADED, or FAILED (with the reason) where nbgrader did not autograde it. Returns the manual scores reset
    in the gradebooks."""
    corrections = []
    cells = points_per_cell(assignment)
    for group in groups:
        folder = group.folder
        try:
            seconds = student_seconds(logs.get(folder, ""), folder)
            corrections += reset_manual_scores(folder / "gradebook.db", assignment, group.students)
            scores = read_gradebook(folder / "gradebook.db", assignment, group.students)
        except Exception as exc:  # noqa: BLE001 - an interrupted group's gradebook may not be there
            seconds, scores = {}, {}
            if not interrupted:
                raise
        for student in group.students:
            info = students[student]
            info["seconds"] = seconds.get(student)
            info["sandbox"] = SANDBOXED if limits["sandbox"] else UNSAFE
            info["gradebook"] = str(folder / "gradebook.db")
            if not _autograded(folder, assignment, student, info["files"]) or student not in scores:
                info["status"] = FAILED
                info["reason"] = ("grading was interrupted (Ctrl-C) before this notebook was graded" if interrupted
                                  else f"nbgrader could not grade it (grading.log says why)")
                continue
            info.update(scores[student], status=GRADED)
            try:
                info.update(test_outcomes(
                    [folder / "autograded" / student / assignment / f"{n}.ipynb" for n in info["files"]],
                    cells, info["cells"]))
            except Exception as exc:  # noqa: BLE001 - the grade stands; only the details are missing
                info["reason"] = f"its per-test outcomes could not be read: {exc!r}"
    return corrections


TIMED_OUT = re.compile(r"time budget|no answer .* within|took no request|timed? ?out", re.IGNORECASE)


def test_outcomes(paths: list[Path], cells: dict, scores: dict) -> StudentResult:
    """{"tests": {grade_id: {"score", "points", "passed", and for a failed one "error", "timed_out",
    "sandbox_stopped"}}, "cell_errors": errors in the student's own cells, "first_cell_error"} from the autograded
    notebooks (what the checks wrote as outputs)."""
    tests, errors, first = {}, 0, ""
    for path in paths:
        for cell in json.loads(path.read_text()).get("cells", []):
            if cell.get("cell_type") != "code":
                continue
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            error = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
            said = f"{error.get('ename')}: {error.get('evalue')}"[:300] if error else ""
            if grade_id in cells:
                score = scores.get(grade_id)
                entry = {"score": score, "points": cells[grade_id],
                         "passed": score is not None and score >= cells[grade_id]}
                if error:
                    entry.update(error=said, timed_out=bool(TIMED_OUT.search(str(error.get("evalue")))),
                                 sandbox_stopped=error.get("ename") == "SandboxError")
                tests[grade_id] = entry
            elif error:
                errors += 1
                first = first or said[:200]
    return {"tests": tests, "cell_errors": errors, "first_cell_error": first}


def copy_feedback(students: dict[str, StudentResult], groups: list[Group], assignment: str, out: Path,
                  fallback: bool = False) -> None:
    """The feedback pages of the graded students, to out/feedback/<student_id>/, MathJax from out/feedback/mathjax
    (no network); with `fallback`, a page nbgrader did not make in time is made escaped (feedback_html)."""
    for group in groups:
        for student in group.students:
            info = students[student]
            if info["status"] != GRADED:
                continue
            target = out / "feedback" / student
            try:
                if target.is_dir():
                    shutil.rmtree(target)
                for name in info["files"]:
                    page = group.folder / "feedback" / student / assignment / f"{name}.html"
                    target.mkdir(parents=True, exist_ok=True)
                    if page.exists():
                        (target / f"{name}.html").write_text(offline_mathjax(page.read_text()))
                    elif fallback:
                        from autograde.feedback_html import fallback_page
                        graded = json.loads((group.folder / "autograded" / student / assignment /
                                             f"{name}.ipynb").read_text())
                        (target / f"{name}.html").write_text(fallback_page(
                            graded, f"{name} (Score: {info.get('score')} / {info.get('max_score')})",
                            "This page was made without formatting: the full page took too long to make.",
                            info.get("cells", {})))
                        info["feedback"] = "plain (the page took too long to make)"
            except Exception as exc:  # noqa: BLE001 - one page never stops the others
                info["feedback"] = f"no page: {exc!r}"
    mathjax = out / "feedback" / "mathjax"
    if (out / "feedback").is_dir() and not mathjax.exists():
        import jupyter_server_mathjax
        shutil.copytree(Path(jupyter_server_mathjax.__file__).parent / "static", mathjax)


MATHJAX_CDN = re.compile(r'src="https://cdnjs\.cloudflare\.com/ajax/libs/mathjax/[^"]*"')
# as book/build.py: MathJax 2.7 from the jupyter-server-mathjax package, one folder up from a student's page; the
# package ships the STIX-Web fonts only, so MathJax is told to use them
MATHJAX_LOCAL = ('src="../mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"')
MATHJAX_FONTS = ("""<script type="text/x-mathjax-config">MathJax.Hub.Config({"HTML-CSS": {availableFonts: [], """
                 """preferredFont: null, webFont: "STIX-Web", imageFont: null}});</script>""")


def offline_mathjax(page: str) -> str:
    """A feedback page that loads MathJax from out/feedback/mathjax, not from a CDN."""
    found = MATHJAX_CDN.search(page)
    if not found:
        return page
    start = page.rfind("<script", 0, found.start())
    return page[:start] + MATHJAX_FONTS + page[start:found.start()] + MATHJAX_LOCAL + page[found.end():]


def points_per_cell(assignment: str) -> dict:
    """{grade_id: points} of every test cell of the assignment."""
    cells = {}
    for path in notebooks.assignment_notebooks(assignment):
        cells.update(notebook_source.test_cells(path))
    return cells


def write_report(report: ClassReport, out: Path) -> None:
    """grades.csv, grades.json and report.txt in `out`, each on its own (one failing leaves the others); the
    gradebook corrections, if any, told on stderr."""
    problems = []
    for name, write in [("grades.csv", lambda: write_csv(report, out / "grades.csv")),
                        ("grades.json", lambda: write_json(report, out / "grades.json")),
                        ("report.txt", lambda: (out / "report.txt").write_text(class_report(report)))]:
        try:
            write()
        except Exception as exc:  # noqa: BLE001
            problems.append(f"{name}: {exc!r}")
    if report["gradebook_corrections"]:
        print("reset in the gradebook (only the autograder's scores count):\n  "
              + "\n  ".join(report["gradebook_corrections"]), file=sys.stderr)
    if problems:
        raise RuntimeError("could not write " + "; ".join(problems))


RUN_BOUNDARY = "[grade.py] next nbgrader run:"  # between one group's runs in its log text (a regrade alone)


def student_seconds(log_text: str, folder: Path) -> dict[str, float]:
    """Seconds nbgrader spent on each student, from the log's timestamps: from its "Sanitizing .../submitted/<student>/"
    line to the next student's, a run's last student's to that run's last timestamp (not the file's: the group's log
    stays open until every group is done; not a later run's: a regrade alone comes after every group is done)."""
    seconds: dict[str, float] = {}
    current, last = None, None  # (start, student) being timed; the run's last timestamp

    def close(until):
        if current is not None:  # one line per notebook: a student's notebooks (and runs) add up
            seconds[current[1]] = round(seconds.get(current[1], 0.0) + until - current[0], 1)

    for line in log_text.splitlines():
        if line.startswith(RUN_BOUNDARY):
            close(last)
            current = None
            continue
        stamped = re.match(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:,\d+)? ", line)
        if not stamped:
            continue
        last = datetime.strptime(stamped.group(1), "%Y-%m-%d %H:%M:%S").timestamp()
        found = re.search(r"Sanitizing .*/submitted/([^/]+)/", line)
        if found:
            close(last)
            current = (last, found.group(1))
    if current is not None:
        log_file = folder / "autograde.log"
        close(last if last is not None else log_file.stat().st_mtime if log_file.exists() else time.time())
    return seconds


def read_gradebook(db: Path, assignment: str, students: list[str]) -> dict:
    """{student: {"score", "max_score", "cells": {grade_id: score}, "cell_max": {grade_id: max}}} from nbgrader's
    gradebook (only students with a submission in it)."""
    from nbgrader.api import Gradebook, MissingEntry

    scores = {}
    with Gradebook(f"sqlite:///{db}") as gradebook:
        for student in students:
            try:
                submission = gradebook.find_submission(assignment, student)
            except MissingEntry:
                continue
            cells, cell_max = {}, {}
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    cells[grade.name] = grade.score
                    cell_max[grade.name] = grade.max_score
            scores[student] = {"score": submission.score, "max_score": submission.max_score, "cells": cells,
                               "cell_max": cell_max}
    return scores


def _log(log, message: str) -> None:
    log.write(f"[grade.py] {message}\n")
    log.flush()
    print(message, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
