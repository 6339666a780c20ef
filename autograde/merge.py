"""Combine the --out folders of `grade.py --shard K/N` runs into one, as if the class had been graded in one run.

    python -m autograde.merge grading/shard-0 grading/shard-1 ... --out grading/all

Each part's grades.json lists its students; the merged grades.csv/grades.json list every student once (sorted, as
one run lists them), and feedback/<student_id>/ pages are copied over. Refuses parts of different assignments,
parts that overlap (a student graded twice) and an incomplete set of shards (K of N missing).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from autograde.report import summary_table, write_csv


def merge(parts: list[Path], out: Path) -> dict:
    reports = [json.loads((part / "grades.json").read_text()) for part in parts]
    assignments = {r["assignment"] for r in reports}
    if len(assignments) != 1:
        raise ValueError(f"the parts grade different assignments: {sorted(assignments)}")
    shards = sorted(tuple(r.get("shard", (0, 1))) for r in reports)
    count = shards[0][1]
    if shards != [(k, count) for k in range(count)]:
        raise ValueError(f"expected shards 0/{count} to {count - 1}/{count} once each, got {shards}")
    students = {}
    for part, report in zip(parts, reports):
        for student, info in report["students"].items():
            if student in students:
                raise ValueError(f"student {student} is in two parts (the second: {part})")
            students[student] = info
    merged = {**reports[0], "students": dict(sorted(students.items())), "shard": [0, 1],
              "parts": [str(p) for p in parts],
              "gradebook_corrections": [c for r in reports for c in r.get("gradebook_corrections", [])]}
    out.mkdir(parents=True, exist_ok=True)
    for part in parts:
        if (part / "feedback").is_dir():
            shutil.copytree(part / "feedback", out / "feedback", dirs_exist_ok=True)
    write_csv(merged, out / "grades.csv")
    (out / "grades.json").write_text(json.dumps(merged, indent=1, default=str))
    return merged


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("parts", type=Path, nargs="+", help="the --out folders of the shards")
    parser.add_argument("--out", type=Path, required=True, help="where the merged grades and feedback go")
    args = parser.parse_args(argv)
    try:
        report = merge(args.parts, args.out)
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    print(summary_table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
