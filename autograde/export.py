"""Grades for an LMS: one CSV, a row per student, a column per set with the set's total (after any late penalty).

    python -m autograde.export grading/01_data_parallelism grading/02_sharding --out lms-grades.csv

Columns: `student_id` (the submission folder's name: make it the LMS's login or SIS id), then one per set, headed
`<assignment> (<max points>)`; a student a set did not grade (not submitted, grading failed) has an empty cell, which
Canvas and Moodle import as "no grade". Canvas: Grades > Import, the student_id column matched as "SIS Login ID"
(rename the header if your course matches on another); Moodle: Grades > Import > CSV file, map student_id to
"username" (or idnumber) and each set's column to its grade item. Each folder is the --out of grade.py (or merge.py).
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from autograde.report import safe


def export(results: list[Path], out: Path) -> dict[str, dict[str, float | None]]:
    """{student_id: {column: total or None}} of `results` (grade.py --out folders), written to `out` as CSV."""
    columns, table = [], {}
    for folder in results:
        path = folder / "grades.json"
        if not path.is_file():
            raise ValueError(f"{folder} holds no grades.json: pass the --out folder of a grade.py or merge.py run")
        report = json.loads(path.read_text())
        column = f"{report['assignment']} ({report['max_score']:g})"
        if column in columns:
            raise ValueError(f"{report['assignment']} is given twice (the second: {folder})")
        columns.append(column)
        for student, info in report["students"].items():
            graded = info.get("status") == "graded"
            table.setdefault(safe(student), {})[column] = float(info["score"]) if graded else None
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", *columns])
        for student in sorted(table):
            writer.writerow([student, *("" if table[student].get(c) is None else f"{table[student][c]:g}"
                                        for c in columns)])
    return table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.split("\n")[2:]))
    parser.add_argument("results", type=Path, nargs="+", help="grade.py's --out folders, one per set")
    parser.add_argument("--out", type=Path, required=True, help="the CSV to write")
    args = parser.parse_args(argv)
    try:
        table = export(args.results, args.out)
    except (ValueError, OSError, KeyError) as exc:
        parser.error(str(exc))
    print(f"{len(table)} student(s), {len(args.results)} set(s): {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
