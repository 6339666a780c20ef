"""Grade a folder of submissions: each student's code runs in a sandbox, each test is decided by a trusted check.

    python -m autograde.grade 01_data_parallelism path/to/submissions --out grading/ [--jobs 2]
    python -m autograde.grade 01_data_parallelism path/to/submissions --out grading/shard-3 --shard 3/10   # a part
    python -m autograde.merge grading/shard-* --out grading/all                                           # the whole

Submissions, one folder per student (the folder's name is the student id: letters, digits, `_ . @ -`):

    path/to/submissions/<student_id>/data_parallelism.ipynb              the notebook as the student saved it
    path/to/submissions/<student_id>/01_data_parallelism/data_parallelism.ipynb    (nbgrader's own layout, also read)

Writes, in --out:

    grades.csv                      one row per student: status, score, max_score, seconds, sandbox, each test cell
    grades.json                     the same with each cell's maximum, the shard, and what grading had to correct
    feedback/<student_id>/data_parallelism.html    the graded notebook: every check's output and score
    grading.log                     nbgrader's log (why a student's notebook could not be graded, if one could not)

How (autograde/README.md has the threat model): nbgrader keeps the bookkeeping (gradebook, feedback), but its
Execute step is autograde/sandboxed_execute.py: the student's cells run in bubblewrap (autograde/sandbox.py: no
repository, no gradebook, no other submission, no network, no secrets), and each test cell scores what the trusted
check autograde/checks/<assignment>.py::<grade_id> decides, in the grader, from plain data. Without bubblewrap the
command refuses, unless --unsafe-no-sandbox (then the CSV's `sandbox` column says `none (unsafe)`).

Limits: --budget seconds per student (default 300: past it, the sandbox and everything in it is killed and the
remaining checks score 0), --cell-timeout seconds per notebook cell (default 60), --call-timeout seconds per call of
a check (default 60; a function past it is not run again), --max-restarts fresh sandboxes per check (default 2),
printed output capped per cell; --memory-gib, --tasks and --cpus for all of one student's processes together, in a
control group of its own where the system lets the grader make one (autograde/cgroup.py; grades.json's limits say
whether it did).

nbgrader's working state (gradebook.db, submitted/, autograded/, feedback/) goes to --work (default
autograde/work/<assignment>, git-ignored), which is emptied first. With --jobs N the students are split into N
groups graded side by side, each in one `nbgrader autograde` call with its own gradebook in --work/group-<k>. One
notebook never stops another's grading: each is normalised first (autograde/normalise.py: a cell pasted twice, empty
nbgrader metadata; the corrections are in grades.json), and a student nbgrader left ungraded with its group is graded
again alone.
solutions/, exercises/, autograde/ and the submissions are hashed before and after: if anything changed, the
command says what and exits 3. A manual score or extra credit that appears in the gradebook while grading is reset.

Exit status: 0 when every submission was graded, 1 when some could not be (the CSV still lists everyone), 2 on a
usage error (or no sandbox), 3 when grading changed a file it must not.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from autograde import notebooks
from autograde.cgroup import MEMORY_BYTES, TASKS, StudentGroup
from autograde.integrity import FilesChanged, compare_hashes, reset_manual_scores, tree_hashes
from autograde.normalise import normalise_submission
from autograde.report import summary_table, write_csv

STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]*")
LOG_FORMAT = "%(asctime)s [%(name)s | %(levelname)s] %(message)s"
WORK_MARKER = ".distlab-grading-work"
GRADED, NOT_SUBMITTED, FAILED, INVALID_ID = "graded", "not submitted", "grading failed", "invalid student id"
SUBMITTED = "submitted"  # handed in, not graded yet: every such student ends GRADED or FAILED
SANDBOXED, UNSAFE = "bubblewrap", "none (unsafe)"


def main(argv=None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    work = checked_work(parser, args)
    from autograde.bwrap import sandbox_problem  # not autograde.sandbox: that imports torch (4 s)
    problem = None if args.unsafe_no_sandbox else sandbox_problem()
    if problem:
        parser.error(f"refusing to grade without a sandbox: {problem}. (--unsafe-no-sandbox grades anyway, without "
                     f"protection: only for code you trust)")
    limits = {"sandbox": not args.unsafe_no_sandbox, "budget_s": args.budget, "cell_timeout_s": args.cell_timeout,
              "call_timeout_s": args.call_timeout, "max_restarts": args.max_restarts,
              "memory_bytes": int(args.memory_gib * 2**30), "tasks": args.tasks, "cpus": args.cpus}
    try:
        report = grade(args.assignment, args.submissions, args.out, work, args.jobs, args.timeout, limits,
                       args.shard)
    except FilesChanged as exc:
        print(f"grading changed files it must not change:\n{exc}", file=sys.stderr)
        return 3
    return tell_outcome(report, args.out)


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.split("\n")[2:]))
    parser.add_argument("assignment", help="e.g. 01_data_parallelism (a folder of solutions/)")
    parser.add_argument("submissions", type=Path, help="folder with one sub-folder per student")
    parser.add_argument("--out", type=Path, default=Path("grading"),
                        help="where grades and feedback go (default: grading/)")
    parser.add_argument("--work", type=Path, help="nbgrader's work folder (default: autograde/work/<assignment>)")
    parser.add_argument("--jobs", type=int, default=1, help="grade this many students side by side (default 1)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds after which a whole `nbgrader autograde` call is stopped (default: none)")
    parser.add_argument("--budget", type=float, default=300.0,
                        help="seconds one student's notebook may take in all, in its sandbox (default 300)")
    parser.add_argument("--cell-timeout", type=float, default=60.0,
                        help="seconds one cell of a student's notebook may run when it is run at the sandbox's start "
                             "(default 60; a loop inside a function meets --call-timeout instead)")
    parser.add_argument("--call-timeout", type=float, default=60.0,
                        help="seconds one call of a check into the student's code may take (default 60); a function "
                             "that runs past it, or that a launch's ranks were in past the launch's deadline, is not "
                             "run again: later checks that call it fail at once, the others still run")
    parser.add_argument("--max-restarts", type=int, default=2,
                        help="fresh sandboxes one check may start after the student's code stopped one (default 2); "
                             "each later check starts fresh again, within --budget")
    parser.add_argument("--memory-gib", type=float, default=4.0,
                        help="GiB of memory one student's sandbox may use, all its processes together (default 4), "
                             "where the system lets the grader make a control group (grades.json says if it did)")
    parser.add_argument("--tasks", type=int, default=512,
                        help="processes and threads one student's sandbox may run at once (default 512; same)")
    parser.add_argument("--cpus", type=float, default=0.0,
                        help="cores one student's sandbox may use at most, e.g. cores / --jobs (default 0: no cap); "
                             "every student gets an equal CPU weight where the control group has a CPU controller")
    parser.add_argument("--shard", type=parse_shard, default=(0, 1), metavar="K/N",
                        help="grade only part K of N (K from 0 to N-1; students in sorted order, every N-th); "
                             "combine the parts' --out folders with autograde/merge.py")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="run students' code without bubblewrap (UNSAFE: a student can read the solutions and "
                             "change grades); the CSV records it")
    return parser


def checked_work(parser: argparse.ArgumentParser, args) -> Path:
    """nbgrader's work folder for these arguments, once they are usable (else parser.error: exit status 2)."""
    if args.assignment not in notebooks.assignments():
        parser.error(f"no assignment {args.assignment!r} in {notebooks.SOLUTIONS} "
                     f"(there are: {notebooks.assignments()})")
    if not args.submissions.is_dir():
        parser.error(f"no folder {args.submissions}")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if min(args.budget, args.cell_timeout, args.call_timeout) <= 0 or args.max_restarts < 0 or args.cpus < 0:
        parser.error("--budget, --cell-timeout and --call-timeout must be positive, --max-restarts and --cpus at "
                     "least 0")
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


def tell_outcome(report: dict, out: Path) -> int:
    """Print the summary and where the files are; the exit status: 1 when a submission could not be graded."""
    print(summary_table(report))
    failed = [s for s, r in report["students"].items() if r["status"] == FAILED]
    print(f"\ngrades: {out / 'grades.csv'}   feedback: {out / 'feedback'}/<student_id>/")
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


def grade(assignment: str, submissions: Path, out: Path, work: Path, jobs: int = 1,
          timeout: float | None = None, limits: dict | None = None, shard: tuple[int, int] = (0, 1)) -> dict:
    """Grade every student folder of `submissions` (or part `shard` = (K, N) of them); write grades.csv,
    grades.json, feedback/, grading.log to `out`."""
    limits = with_defaults(limits)
    names = [p.stem for p in notebooks.assignment_notebooks(assignment)]
    students = collect(submissions, assignment, names)
    students = {s: info for i, (s, info) in enumerate(students.items()) if i % shard[1] == shard[0]}
    guarded = [notebooks.SOLUTIONS, notebooks.EXERCISES, notebooks.AUTOGRADE, submissions.resolve()]
    before = tree_hashes(guarded, skip=[work, out.resolve()])
    stage(assignment, work)
    out.mkdir(parents=True, exist_ok=True)
    submitted = [s for s, info in students.items() if info["status"] == SUBMITTED]
    groups = split_groups(submitted, jobs, work)
    with open(out / "grading.log", "w") as log:
        _log(log, f"grading {assignment}: {len(submitted)} submission(s) in {len(groups)} group(s); work folder {work}")
        release(assignment, groups, work, log)
        hand_in(students, groups, assignment)
        logs = autograde_groups(assignment, students, groups, work, timeout, limits, log)
        run_groups(["generate_feedback", assignment, "--force"], groups, work, None)
        keep_group_logs(groups, log)
    corrections = collect_scores(students, groups, assignment, logs, limits)
    copy_feedback(students, groups, assignment, out)
    cells = points_per_cell(assignment)
    report = {"assignment": assignment, "cells": cells, "students": students, "max_score": sum(cells.values()),
              "shard": list(shard), "limits": limits, "gradebook_corrections": corrections}
    write_report(report, out)
    changed = compare_hashes(before, tree_hashes(guarded, skip=[work, out.resolve()]))
    if changed:
        raise FilesChanged("\n".join(changed))
    return report


@dataclass
class Group:
    """Students graded side by side with others' groups: one `nbgrader autograde` call, in a work folder of its own
    (its own gradebook)."""
    folder: Path
    students: list[str]


def with_defaults(limits: dict | None) -> dict:
    """The limits of one student's sandbox, the defaults filled in, and which control group grading here gets."""
    limits = {"sandbox": True, "budget_s": 300.0, "cell_timeout_s": 60.0, "call_timeout_s": 60.0, "max_restarts": 2,
              "memory_bytes": MEMORY_BYTES, "tasks": TASKS, "cpus": 0.0, **(limits or {})}
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


def release(assignment: str, groups: list[Group], work: Path, log) -> None:
    """One `nbgrader generate_assignment` records the assignment in the first group's gradebook; the others copy it."""
    first = groups[0].folder
    done = notebooks.run_nbgrader(["generate_assignment", assignment, "--force",
                                   f"--Application.log_format={LOG_FORMAT}"],
                                  work=first, source_dir=work / "source", release_dir=work / "release", log=log)
    if done.returncode != 0:
        raise SystemExit(f"nbgrader generate_assignment failed; see {log.name}")
    for group in groups[1:]:
        group.folder.mkdir(parents=True)
        shutil.copy(first / "gradebook.db", group.folder / "gradebook.db")


def hand_in(students: dict, groups: list[Group], assignment: str) -> None:
    """Each student's notebooks into its group's submitted/ folder, normalised (the corrections go in `students`)."""
    for group in groups:
        for student in group.students:
            for name, path in students[student]["files"].items():
                dest = group.folder / "submitted" / student / assignment / f"{name}.ipynb"
                dest.parent.mkdir(parents=True, exist_ok=True)
                corrected = normalise_submission(path, dest)  # what would stop nbgrader for the whole group
                students[student].setdefault("corrections", []).extend(f"{name}: {c}" for c in corrected)


def autograde_groups(assignment: str, students: dict, groups: list[Group], work: Path, timeout, limits: dict,
                     log) -> dict:
    """`nbgrader autograde` in every group at once, with the sandbox's limits; {group folder: its log text}."""
    started = time.time()
    sandboxed = [f"--SandboxedExecute.sandbox={limits['sandbox']}",
                 f"--SandboxedExecute.budget_s={limits['budget_s']}",
                 f"--SandboxedExecute.cell_timeout_s={limits['cell_timeout_s']}",
                 f"--SandboxedExecute.memory_bytes={limits['memory_bytes']}",
                 f"--SandboxedExecute.tasks={limits['tasks']}",
                 f"--SandboxedExecute.call_timeout_s={limits['call_timeout_s']}",
                 f"--SandboxedExecute.max_restarts={limits['max_restarts']}",
                 f"--SandboxedExecute.cpus={limits['cpus']}"]
    logs = run_groups(["autograde", assignment, "--force", *sandboxed], groups, work, timeout)
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
                log_name=f"autograde-alone-{student}")[group.folder]
    _log(log, f"autograde took {time.time() - started:.1f} s")
    return logs


def _autograded(folder: Path, assignment: str, student: str, files: dict) -> bool:
    return all((folder / "autograded" / student / assignment / f"{name}.ipynb").exists() for name in files)


def collect(submissions: Path, assignment: str, names: list[str]) -> dict:
    """{student_id: {"status", "files": {notebook name: path}}} for each folder in `submissions`."""
    students = {}
    for folder in sorted(p for p in submissions.iterdir() if p.is_dir() and not p.name.startswith(".")):
        student = folder.name
        if not STUDENT_ID.fullmatch(student):
            students[student] = {"status": INVALID_ID, "files": {}}
            continue
        files = {}
        for name in names:
            for candidate in (folder / f"{name}.ipynb", folder / assignment / f"{name}.ipynb"):
                if candidate.is_file():
                    files[name] = candidate
                    break
        students[student] = {"status": SUBMITTED if files else NOT_SUBMITTED, "files": files}
    return students


def run_groups(args: list[str], groups: list[Group], work: Path, timeout, log_name: str = "") -> dict:
    """Run `nbgrader <args>` in every group's folder at once; return {folder: its log text} (the log: log_name, or
    the command's name, .log in the folder)."""
    procs, log_name = [], log_name or args[0]
    for group in groups:
        if not group.students:
            continue
        log = open(group.folder / f"{log_name}.log", "w")
        env = notebooks.nbgrader_env(group.folder, source_dir=work / "source", release_dir=work / "release")
        command = [sys.executable, "-m", "nbgrader", *args, f"--Application.log_format={LOG_FORMAT}"]
        proc = subprocess.Popen(command, cwd=notebooks.AUTOGRADE, env=env, stdout=log, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)
        procs.append((group.folder, proc, log))
    deadline = None if timeout is None else time.monotonic() + timeout
    for folder, proc, log in procs:
        try:
            proc.wait(timeout=None if deadline is None else max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            log.write(f"\n[grade.py] stopped after the --timeout of {timeout:g} s\n")
        finally:
            notebooks.kill_group(proc)
            log.close()
    return {folder: (folder / f"{log_name}.log").read_text() for folder, _, _ in procs}


def keep_group_logs(groups: list[Group], log) -> None:
    """Every group's nbgrader output, appended to the one log."""
    for group in groups:
        folder = group.folder
        for path in [*sorted(folder.glob("autograde*.log")), folder / "generate_feedback.log"]:
            if path.exists():
                log.write(f"\n===== {folder.name}: {path.name} =====\n" + path.read_text())


def collect_scores(students: dict, groups: list[Group], assignment: str, logs: dict, limits: dict) -> list[str]:
    """Each submitted student's scores, seconds and gradebook from its group's gradebook, and its status: GRADED, or
    FAILED where nbgrader did not autograde it. Returns the manual scores reset in the gradebooks."""
    corrections = []
    for group in groups:
        folder = group.folder
        seconds = student_seconds(logs.get(folder, ""), folder)
        corrections += reset_manual_scores(folder / "gradebook.db", assignment, group.students)
        scores = read_gradebook(folder / "gradebook.db", assignment, group.students)
        for student in group.students:
            info = students[student]
            info["seconds"] = seconds.get(student)
            info["sandbox"] = SANDBOXED if limits["sandbox"] else UNSAFE
            info["gradebook"] = str(folder / "gradebook.db")
            if not _autograded(folder, assignment, student, info["files"]) or student not in scores:
                info["status"] = FAILED
                continue
            info.update(scores[student], status=GRADED)
    return corrections


def copy_feedback(students: dict, groups: list[Group], assignment: str, out: Path) -> None:
    """The feedback pages of the graded students, to out/feedback/<student_id>/."""
    for group in groups:
        for student in group.students:
            if students[student]["status"] != GRADED:
                continue
            for name in students[student]["files"]:
                page = group.folder / "feedback" / student / assignment / f"{name}.html"
                if page.exists():
                    target = out / "feedback" / student / f"{name}.html"
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(page, target)


def points_per_cell(assignment: str) -> dict:
    """{grade_id: points} of every test cell of the assignment."""
    cells = {}
    for path in notebooks.assignment_notebooks(assignment):
        cells.update(notebooks.test_cells(path))
    return cells


def write_report(report: dict, out: Path) -> None:
    """grades.csv and grades.json in `out`; the gradebook corrections, if any, told on stderr."""
    write_csv(report, out / "grades.csv")
    with open(out / "grades.json", "w") as f:
        json.dump(report, f, indent=1, default=str)
    if report["gradebook_corrections"]:
        print("reset in the gradebook (only the autograder's scores count):\n  "
              + "\n  ".join(report["gradebook_corrections"]), file=sys.stderr)


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
