"""Grade a folder of submissions with nbgrader: a grades CSV and one feedback page per student.

    python autograde/grade.py 01_data_parallelism path/to/submissions --out grading/ [--jobs 2]

Submissions, one folder per student (the folder's name is the student id: letters, digits, `_ . @ -`):

    path/to/submissions/<student_id>/data_parallelism.ipynb              the notebook as the student saved it
    path/to/submissions/<student_id>/01_data_parallelism/data_parallelism.ipynb    (nbgrader's own layout, also read)

Writes, in --out:

    grades.csv                      one row per student: status, score, max_score, then each test cell's score
    grades.json                     the same with each cell's maximum, and the seconds each student took to grade
    feedback/<student_id>/data_parallelism.html    the graded notebook: every check's output and score
    grading.log                     nbgrader's log (why a student's notebook could not be graded, if one could not)

nbgrader's working state (gradebook.db, submitted/, autograded/, feedback/) goes to --work (default
autograde/work/<assignment>, git-ignored), which is emptied first. With --jobs N the students are split into N
groups graded side by side, each in one `nbgrader autograde` call with its own gradebook in --work/shard-<k>.

Every check cell launches ranks with a deadline, so a submission that deadlocks or loops forever costs about 20 s
per affected check and scores zero there; one that nbgrader cannot grade at all (e.g. not a notebook) is reported
with status `grading failed`, and the others are graded all the same. Exit status: 0 when every submission was
graded, 1 when some could not be (the CSV still lists everyone), 2 on a usage error.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # autograde/ is a folder of the repository
from autograde import notebooks  # noqa: E402

STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]*")
LOG_FORMAT = "%(asctime)s [%(name)s | %(levelname)s] %(message)s"
WORK_MARKER = ".distlab-grading-work"
GRADED, NOT_SUBMITTED, FAILED, INVALID_ID = "graded", "not submitted", "grading failed", "invalid student id"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.split("\n")[2:]))
    parser.add_argument("assignment", help="e.g. 01_data_parallelism (a folder of solutions/)")
    parser.add_argument("submissions", type=Path, help="folder with one sub-folder per student")
    parser.add_argument("--out", type=Path, default=Path("grading"), help="where grades and feedback go (default: grading/)")
    parser.add_argument("--work", type=Path, help="nbgrader's work folder (default: autograde/work/<assignment>)")
    parser.add_argument("--jobs", type=int, default=1, help="grade this many students side by side (default 1)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds after which a whole `nbgrader autograde` call is stopped (default: none)")
    args = parser.parse_args(argv)

    if args.assignment not in notebooks.assignments():
        parser.error(f"no assignment {args.assignment!r} in {notebooks.SOLUTIONS} (there are: {notebooks.assignments()})")
    if not args.submissions.is_dir():
        parser.error(f"no folder {args.submissions}")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
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

    report = grade(args.assignment, args.submissions, args.out, work, args.jobs, args.timeout)
    print(summary_table(report))
    failed = [s for s, r in report["students"].items() if r["status"] == FAILED]
    print(f"\ngrades: {args.out / 'grades.csv'}   feedback: {args.out / 'feedback'}/<student_id>/")
    if failed:
        print(f"could not grade: {', '.join(failed)} (see {args.out / 'grading.log'})", file=sys.stderr)
    return 1 if failed else 0


def grade(assignment: str, submissions: Path, out: Path, work: Path, jobs: int = 1,
          timeout: float | None = None) -> dict:
    """Grade every student folder of `submissions`; write grades.csv, grades.json, feedback/, grading.log to `out`."""
    names = [p.stem for p in notebooks.assignment_notebooks(assignment)]
    students = collect(submissions, assignment, names)
    if work.exists():  # our own work folder from an earlier run (main() checked the marker)
        shutil.rmtree(work)
    work.mkdir(parents=True)
    (work / WORK_MARKER).write_text("nbgrader work folder of autograde/grade.py: emptied at each run\n")
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "grading.log"

    to_grade = [s for s, info in students.items() if info["status"] == GRADED]
    shards = [to_grade[k::jobs] for k in range(min(jobs, len(to_grade)))] or [[]]
    shard_work = [work / f"shard-{k}" for k in range(len(shards))] if len(shards) > 1 else [work]

    with open(log_path, "w") as log:
        _log(log, f"grading {assignment}: {len(to_grade)} submission(s) in {len(shards)} group(s); work folder {work}")
        # one generate_assignment records the assignment (with its hidden tests) in a gradebook; shards copy it
        release = notebooks.run_nbgrader(["generate_assignment", assignment, "--force", f"--Application.log_format={LOG_FORMAT}"],
                                         work=shard_work[0], release_dir=work / "release", log=log)
        if release.returncode != 0:
            raise SystemExit(f"nbgrader generate_assignment failed; see {log_path}")
        for folder in shard_work[1:]:
            folder.mkdir(parents=True)
            shutil.copy(shard_work[0] / "gradebook.db", folder / "gradebook.db")
        for folder, shard in zip(shard_work, shards):
            for student in shard:
                for name, path in students[student]["files"].items():
                    dest = folder / "submitted" / student / assignment / f"{name}.ipynb"
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(path, dest)

        started = time.time()
        logs = _run_shards(["autograde", assignment, "--force"], shard_work, work, timeout, shards)
        _log(log, f"autograde took {time.time() - started:.1f} s")
        _run_shards(["generate_feedback", assignment, "--force"], shard_work, work, None, shards)
        for folder in shard_work:  # keep every shard's nbgrader output in the one log
            for name in ("autograde.log", "generate_feedback.log"):
                if (folder / name).exists():
                    log.write(f"\n===== {folder.name}: {name} =====\n" + (folder / name).read_text())

    cells = {}
    for path in notebooks.assignment_notebooks(assignment):
        cells.update(notebooks.test_cells(path))
    for folder, shard in zip(shard_work, shards):
        seconds = student_seconds(logs.get(folder, ""), folder)
        scores = read_gradebook(folder / "gradebook.db", assignment, shard)
        for student in shard:
            info = students[student]
            info["seconds"] = seconds.get(student)
            info["gradebook"] = str(folder / "gradebook.db")
            graded = all((folder / "autograded" / student / assignment / f"{n}.ipynb").exists() for n in info["files"])
            if not graded or student not in scores:
                info["status"] = FAILED
                continue
            info.update(scores[student])
            for name in info["files"]:
                page = folder / "feedback" / student / assignment / f"{name}.html"
                if page.exists():
                    target = out / "feedback" / student / f"{name}.html"
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(page, target)
    report = {"assignment": assignment, "cells": cells, "students": students, "max_score": sum(cells.values())}
    write_csv(report, out / "grades.csv")
    with open(out / "grades.json", "w") as f:
        json.dump(report, f, indent=1, default=str)
    return report


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
        students[student] = {"status": GRADED if files else NOT_SUBMITTED, "files": files}
    return students


def _run_shards(args: list[str], folders: list[Path], work: Path, timeout, shards) -> dict:
    """Run `nbgrader <args>` in every shard folder at once; return {folder: its log text}."""
    procs = []
    for folder, shard in zip(folders, shards):
        if not shard:
            continue
        log = open(folder / f"{args[0]}.log", "w")
        env = notebooks.nbgrader_env(folder, release_dir=work / "release")
        command = [sys.executable, "-m", "nbgrader", *args, f"--Application.log_format={LOG_FORMAT}"]
        proc = subprocess.Popen(command, cwd=notebooks.AUTOGRADE, env=env, stdout=log, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)
        procs.append((folder, proc, log))
    deadline = None if timeout is None else time.monotonic() + timeout
    for folder, proc, log in procs:
        try:
            proc.wait(timeout=None if deadline is None else max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            log.write(f"\n[grade.py] stopped after the --timeout of {timeout:g} s\n")
        finally:
            notebooks.kill_group(proc)
            log.close()
    return {folder: (folder / f"{args[0]}.log").read_text() for folder, _, _ in procs}


def student_seconds(log_text: str, folder: Path) -> dict[str, float]:
    """Seconds nbgrader spent on each student, from the log's timestamps ("Sanitizing .../submitted/<student>/...")."""
    starts = []
    for line in log_text.splitlines():
        found = re.match(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:,\d+)? .*Sanitizing .*/submitted/([^/]+)/", line)
        if found:
            starts.append((datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S").timestamp(), found.group(2)))
    log_file = folder / "autograde.log"
    end = log_file.stat().st_mtime if log_file.exists() else time.time()
    seconds: dict[str, float] = {}
    for i, (start, student) in enumerate(starts):  # one line per notebook: a student's notebooks add up
        seconds[student] = round(seconds.get(student, 0.0) + (starts[i + 1][0] if i + 1 < len(starts) else end) - start, 1)
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


def write_csv(report: dict, path: Path) -> None:
    cells = list(report["cells"]) or sorted({c for r in report["students"].values() for c in r.get("cells", {})})
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", "status", "score", "max_score", "seconds", *cells])
        for student, info in report["students"].items():
            scores = info.get("cells", {})
            writer.writerow([student, info["status"], _num(info.get("score", 0.0)),
                             _num(info.get("max_score", report["max_score"])), info.get("seconds", ""),
                             *(_num(scores[c]) if c in scores else "" for c in cells)])


def summary_table(report: dict) -> str:
    rows = [f"{'student':<32} {'status':<16} {'score':>7}"]
    for student, info in report["students"].items():
        score = f"{_num(info.get('score', 0.0))}/{_num(info.get('max_score', report['max_score']))}"
        rows.append(f"{student:<32} {info['status']:<16} {score:>7}")
    return "\n".join(rows)


def _num(value):
    if value is None:
        return ""
    return int(value) if float(value).is_integer() else round(value, 2)


def _log(log, message: str) -> None:
    log.write(f"[grade.py] {message}\n")
    log.flush()
    print(message, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
