"""What grading a class costs, set by set: the instructor's command (autograde/grade.py, a sandbox per student) next
to plain nbgrader (its own Execute step in a Jupyter kernel, no sandbox) on the same notebooks, in one run.

    python benchmarks/bench_grading.py                          # every set, 4 honest + 4 blank students, ~10 min
    python benchmarks/bench_grading.py 01_data_parallelism 04_tensor_parallelism --students 6
    python benchmarks/bench_grading.py --quick                  # 07 only, 2 + 2, no plain nbgrader (test_benchmarks)

For each set, in this order (the machine's drift hits the three alike, set by set):
- honest: `grade.py --jobs J` over S copies of the reference solution filled into the released notebook;
- blank: `grade.py --jobs J` over S untouched released notebooks (every check fails at once: what a sandbox's start
  costs);
- plain nbgrader: `nbgrader autograde` then `nbgrader generate_feedback` over the same S honest notebooks, split into J
  course folders graded side by side as grade.py splits them, with nbgrader's default steps (the notebook and its
  visible tests run in a kernel): what an instructor would run without the course's grader.
The first three figures are wall-clock seconds for the whole command (releasing the assignment and writing the
feedback pages included) divided by S, so a fixed cost is spread over S students. The grading run of the honest
students is also split in two: each further student (the mean of grades.csv's `seconds`, nbgrader's own time per
student in its group, divided by J groups side by side) and the fixed rest (release, start-up, feedback pages). The
projections come from those two: 100 honest students on this machine, and how many such machines grade 1,000 in 10
minutes (`grade.py --shard K/N` on each, `merge.py` after). Every honest copy must score full marks and every blank
one zero, or the script fails.
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograde import notebooks
from distlab import notebook_source
from distlab.launching.process_tree import kill_tree

REPO = Path(__file__).resolve().parents[1]
STEP_TIMEOUT_S = 1800  # one command of the benchmark (each takes under a minute for 4 students)
PLAIN_CONFIG = """c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.db_url = "sqlite:///" + {db!r}
c.ExecutePreprocessor.timeout = 300
"""


def run_with_deadline(runs: list[tuple[list[str], Path]], env=None) -> list[int]:
    """Run each (command, log file) side by side, in the log's folder; their exit codes. Past STEP_TIMEOUT_S, or on
    an error, every command and everything it started is killed."""
    procs, deadline = [], time.monotonic() + STEP_TIMEOUT_S
    try:
        for command, log in runs:
            with open(log, "a") as out:
                procs.append(subprocess.Popen(command, cwd=log.parent, env=env, stdout=out, stderr=subprocess.STDOUT,
                                              start_new_session=True))
        return [proc.wait(timeout=max(deadline - time.monotonic(), 0)) for proc in procs]
    finally:
        for proc in procs:
            kill_tree(proc)


def write_class(assignment: str, folder: Path, students: int, honest: bool) -> None:
    """S submissions: the released notebook with the reference solution filled in (honest) or untouched (blank)."""
    (source,) = notebooks.assignment_notebooks(assignment)
    released = notebooks.EXERCISES / assignment / source.name
    notebook = notebooks.make_submission(released, source, fill_solutions=honest)
    for k in range(students):
        (folder / f"s{k:03d}").mkdir(parents=True)
        notebook_source.write_notebook(notebook, folder / f"s{k:03d}" / source.name)


def timed_grade(assignment: str, submissions: Path, out: Path, jobs: int) -> tuple[float, list[dict]]:
    """Wall seconds of grade.py over `submissions`, and its grades.csv rows (fails loudly if grading failed)."""
    started = time.monotonic()
    (code,) = run_with_deadline([([sys.executable, "-m", "autograde.grade", assignment, str(submissions), "--out",
                                   str(out / "grades"), "--work", str(out / "work"), "--jobs", str(jobs)],
                                  out / "grade.log")])
    seconds = time.monotonic() - started
    if code != 0:
        raise SystemExit(f"grade.py failed on {assignment}:\n{(out / 'grade.log').read_text()[-3000:]}")
    with open(out / "grades" / "grades.csv") as f:
        return seconds, list(csv.DictReader(f))


def timed_plain(assignment: str, submissions: Path, out: Path, jobs: int) -> float:
    """Wall seconds of plain nbgrader (autograde, then feedback) over `submissions`, in `jobs` course folders side by
    side."""
    (source,) = notebooks.assignment_notebooks(assignment)
    students = sorted(p.name for p in submissions.iterdir())
    roots = []
    for k in range(jobs):
        root = out / f"plain-{k}"
        (root / "source" / assignment).mkdir(parents=True)
        shutil.copy(source, root / "source" / assignment / source.name)
        (root / "nbgrader_config.py").write_text(PLAIN_CONFIG.format(root=str(root), db=str(root / "gradebook.db")))
        for student in students[k::jobs]:
            shutil.copytree(submissions / student, root / "submitted" / student / assignment)
        roots.append(root)
    env = notebooks.nbgrader_env(out, base={**os.environ, "OMP_NUM_THREADS": "1"})
    nbgrader = [sys.executable, "-m", "nbgrader"]

    def run_all(args):  # in every course folder at once
        codes = run_with_deadline([([*nbgrader, *args], root / f"{args[0]}.log") for root in roots], env)
        if any(codes):
            raise SystemExit(f"plain nbgrader {args[0]} failed on {assignment}: see {roots[0]}/{args[0]}.log")

    started = time.monotonic()
    run_all(["generate_assignment", assignment, "--force"])
    run_all(["autograde", assignment, "--force"])
    run_all(["generate_feedback", assignment, "--force"])
    return time.monotonic() - started


def bench_set(assignment: str, students: int, jobs: int, plain: bool, scratch: Path) -> dict:
    row = {}
    for kind, honest in [("honest", True), ("blank", False)]:
        folder = scratch / assignment / kind
        write_class(assignment, folder / "submissions", students, honest)
        seconds, rows = timed_grade(assignment, folder / "submissions", folder, jobs)
        full = sum(notebook_source.test_cells(notebooks.assignment_notebooks(assignment)[0]).values())
        want = full if honest else 0.0
        scores = [float(r["score"]) for r in rows]
        if any(score != want for score in scores):
            raise SystemExit(f"{assignment}: {kind} students scored {scores}, not {want} each")
        row[kind] = seconds / students
        if honest:  # each student's own seconds in its group (nbgrader's log), J groups side by side
            each = sum(float(r["seconds"]) for r in rows) / students / min(jobs, students)
            row["each"], row["fixed"] = each, max(seconds - each * students, 0.0)
    if plain:
        folder = scratch / assignment / "plain"
        folder.mkdir(parents=True)
        row["plain"] = timed_plain(assignment, scratch / assignment / "honest" / "submissions", folder, jobs) / students
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", help="exercise sets (default: every one)")
    parser.add_argument("--students", type=int, default=4, help="honest students, and blank ones, per set (default 4)")
    parser.add_argument("--jobs", type=int, default=2, help="grade.py --jobs (default 2)")
    parser.add_argument("--no-plain", action="store_true", help="skip plain nbgrader")
    parser.add_argument("--quick", action="store_true", help="07_inference, 2 students, no plain nbgrader")
    args = parser.parse_args()
    assignments = args.assignments or notebooks.assignments()
    if args.quick:
        assignments, args.students, args.no_plain = ["07_inference"], 2, True
    load = os.getloadavg()[0]
    print(f"bench_grading {time.strftime('%Y-%m-%d %H:%M')}: {os.cpu_count()} cores, load {load:.1f}, "
          f"{args.students} honest + {args.students} blank students per set, --jobs {args.jobs}\n")
    print("| set | honest s/student | blank s/student | plain nbgrader s/student | honest / plain | "
          "each further student (s) | fixed (s) | 100 students (min) | machines for 1,000 in 10 min |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as scratch:
        for assignment in assignments:
            row = bench_set(assignment, args.students, args.jobs, not args.no_plain, Path(scratch))
            plain = row.get("plain")
            versus = f"{plain:.1f} | {row['honest'] / plain:.2f}" if plain else "- | -"
            hundred, thousand = (row["fixed"] + n * row["each"] for n in (100, 1000))
            print(f"| {assignment} | {row['honest']:.1f} | {row['blank']:.1f} | {versus} | {row['each']:.1f} | "
                  f"{row['fixed']:.0f} | {hundred / 60:.1f} | {math.ceil(thousand / 600)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
