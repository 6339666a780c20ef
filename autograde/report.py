"""The grades a run writes: grades.csv (one row per student) and the summary table grade.py and merge.py print."""
from __future__ import annotations

import csv
from pathlib import Path


def write_csv(report: dict, path: Path) -> None:
    cells = list(report["cells"]) or sorted({c for r in report["students"].values() for c in r.get("cells", {})})
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", "status", "score", "max_score", "seconds", "sandbox", *cells])
        for student, info in report["students"].items():
            scores = info.get("cells", {})
            writer.writerow([student, info["status"], _num(info.get("score", 0.0)),
                             _num(info.get("max_score", report["max_score"])), info.get("seconds", ""),
                             info.get("sandbox", ""), *(_num(scores[c]) if c in scores else "" for c in cells)])


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
