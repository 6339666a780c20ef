"""Run an exercise set's trusted checks on one notebook in a sandbox, without nbgrader: for writing checks.

    python -m autograde.try_checks 02_sharding                      # the reference solution
    python -m autograde.try_checks 02_sharding path/to/notebook.ipynb
    DISTLAB_GRADING_SEED=7 python -m autograde.try_checks 02_sharding   # replay one draw of the checks' inputs

Prints each check's verdict and time, and the sandbox's peak memory and tasks (where it has a control group). The
real grading (scores, feedback) is autograde/grade.py.
"""
import sys
import time

from distlab import notebook_source

from autograde import notebooks
from autograde.cgroup import StudentGroup
from autograde.sets._common import GRADING_SEED, checks_of
from autograde.sandboxed_execute import run_check, submission


def main(assignment: str, notebook: str | None = None) -> int:
    (source,) = notebooks.assignment_notebooks(assignment)
    cells = notebook_source.read_notebook(notebook or source)["cells"]
    checks = checks_of(assignment)
    code = [notebook_source.strip_solution_markers(notebook_source.cell_source(c)) for c in cells
            if c["cell_type"] == "code" and notebook_source.grade_id(c) not in checks]
    started, failed = time.monotonic(), 0
    print(f"{assignment}: seed {GRADING_SEED}")
    with submission(assignment, code) as student:
        for name, check in checks.items():
            errors = [o for o in run_check(check, student) if o.get("output_type") == "error"]
            failed += bool(errors)
            verdict = f"FAILED: {errors[0]['evalue'][:500]}" if errors else "passed"
            print(f"{time.monotonic() - started:6.1f} s  {name}: {verdict}")
    peak = student.group_peak
    print(f"the sandbox's peak: {peak['memory_bytes'] / 2**20:.0f} MiB, {peak['tasks']} tasks "
          f"({student.group.describe()})" if peak else f"no control group: {StudentGroup.why_none()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
