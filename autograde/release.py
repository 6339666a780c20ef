"""Regenerate the student notebooks in exercises/ from the nbgrader source notebooks in solutions/.

    python -m autograde.release                       every assignment
    python -m autograde.release 01_data_parallelism   one (or several)
    python -m autograde.release --check               regenerate into a temporary folder and compare: exit 1 on drift

Runs `nbgrader generate_assignment` (solutions without their code, hidden tests removed, cells locked and
checksummed) with the course's config; its gradebook goes to a temporary folder, never into the repository.
Commit exercises/ together with the solutions/ change that produced it (tests/test_nbgrader.py fails on drift).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from autograde import notebooks


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("assignments", nargs="*", help="assignment names (default: every set of autograde/sets/)")
    parser.add_argument("--check", action="store_true", help="only compare exercises/ with a fresh generation")
    args = parser.parse_args(argv)
    known = notebooks.assignments()
    unknown = sorted(set(args.assignments) - set(known))
    if unknown:
        parser.error(f"no assignment(s) {unknown} in autograde/sets/ (there are: {known})")
    drift = False
    with tempfile.TemporaryDirectory(prefix="distlab-release-") as tmp:
        for assignment in args.assignments or known:
            if args.check:
                generated = notebooks.release(assignment, Path(tmp) / "release", Path(tmp) / f"work-{assignment}")
                problems_here = False
                for path in notebooks.assignment_notebooks(assignment):
                    committed = notebooks.EXERCISES / assignment / path.name
                    problems = (notebooks.release_differences(committed, generated / path.name)
                                if committed.exists() else [f"{committed} is missing"])
                    leaks = notebooks.leaked_lines(path, committed) if committed.exists() else []
                    problems += [f"solution or hidden-test line in the student notebook: {line!r}" for line in leaks]
                    for problem in problems:
                        print(f"{assignment}/{path.name}: {problem}")
                    problems_here |= bool(problems)
                drift |= problems_here
                print(f"{assignment}: {'DRIFT' if problems_here else 'exercises/ is up to date'}")
            else:
                target = notebooks.release(assignment, notebooks.EXERCISES, Path(tmp) / f"work-{assignment}")
                print(f"{assignment}: wrote {target.relative_to(notebooks.REPO)}/")
    return 1 if drift else 0


if __name__ == "__main__":
    sys.exit(main())
