"""Combine the --out folders of `grade.py --shard K/N` runs into one, as if the class had been graded in one run.

    python -m autograde.merge grading/shard-0 grading/shard-1 ... --out grading/all

Each part's grades.json lists its students; the merged grades.csv/grades.json list every student once (sorted, as
one run lists them), and feedback/<student_id>/ pages are copied over. Refuses parts of different assignments,
parts that overlap (a student graded twice), an incomplete set of shards (K of N missing) and an earlier merge among
the parts (a glob that matches --out). The merged grades.json keeps the shards' seed where they share one (`--only`
regrades need it: give every shard the same $DISTLAB_GRADING_SEED).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from autograde.report import class_report, summary_table, write_csv, write_json
from autograde.results import ClassReport


def merge(parts: list[Path], out: Path) -> ClassReport:
    for part in parts:
        if not (part / "grades.json").is_file():
            raise ValueError(f"{part} holds no grades.json: it is not the --out folder of a grade.py run")
    reports = [json.loads((part / "grades.json").read_text()) for part in parts]
    merged_before = [str(part) for part, r in zip(parts, reports) if "parts" in r]
    if merged_before:
        raise ValueError(f"{', '.join(merged_before)} is an earlier merge, not a shard (its grades.json lists the "
                         f"parts it merged): leave it out of the list, e.g. a glob such as grading/shard-* that does "
                         f"not match --out")
    if out.resolve() in [p.resolve() for p in parts]:
        raise ValueError(f"--out {out} is one of the parts: merge into another folder")
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
    seeds = {r.get("seed") for r in reports}
    merged = {**reports[0], "students": dict(sorted(students.items())), "shard": [0, 1],
              "parts": [str(p) for p in parts], "seed": seeds.pop() if len(seeds) == 1 else None,
              "gradebook_corrections": [c for r in reports for c in r.get("gradebook_corrections", [])]}
    out.mkdir(parents=True, exist_ok=True)
    for part in parts:
        if (part / "feedback").is_dir():
            shutil.copytree(part / "feedback", out / "feedback", dirs_exist_ok=True)
    write_csv(merged, out / "grades.csv")
    write_json(merged, out / "grades.json")
    (out / "report.txt").write_text(class_report(merged))
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
