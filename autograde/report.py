"""What a run writes for the instructor: grades.csv (one row per student, a column per test), report.txt (per test,
how many passed; per student, what went wrong), and the summary table grade.py and merge.py print.

Every row is written on its own: a student whose row cannot be made (a folder name that is not UTF-8, issue 45.1)
gets a row that says why, and the others' rows are written all the same.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

from autograde.results import ClassReport, StudentResult

COLUMNS = ["student_id", "status", "score", "max_score", "seconds", "sandbox", "submitted_at", "late", "flags"]


def safe(text) -> str:
    """`text` as UTF-8 can hold it: a file name's undecodable bytes (os.fsdecode's surrogates) as \\xNN."""
    return str(text).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def plain_report(report: ClassReport) -> ClassReport:
    """`report` with every student id made `safe` (JSON and CSV hold no lone surrogates)."""
    return {**report, "students": {safe(s): info for s, info in report["students"].items()}}


def write_json(report: ClassReport, path: Path) -> None:
    path.write_text(json.dumps(plain_report(report), indent=1, default=safe, ensure_ascii=False))


def write_csv(report: ClassReport, path: Path) -> None:
    """grades.csv: one row per student, the test cells' scores last (a column per test)."""
    cells = list(report["cells"]) or sorted({c for r in report["students"].values() for c in r.get("cells", {})})
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([*COLUMNS, *cells])
        for student, info in report["students"].items():
            try:
                row = _row(report, student, info, cells)
            except Exception as exc:  # noqa: BLE001 - one student's row never stops the others'
                row = [safe(student), "grading failed", "", "", "", "", "", "", f"report row failed: {exc!r}"]
            writer.writerow(row)


def _row(report: ClassReport, student: str, info: StudentResult, cells: list[str]) -> list:
    scores = info.get("cells", {})
    return [safe(student), info["status"], _num(info.get("score", 0.0)),
            _num(info.get("max_score", report["max_score"])), info.get("seconds", ""), info.get("sandbox", ""),
            info.get("submitted_at") or "", _late(info), safe("; ".join(flags(info))),
            *(_num(scores[c]) if c in scores else "" for c in cells)]


def _late(info: StudentResult) -> str:
    late = info.get("late_s")
    return "" if late is None else f"{late / 86400:.2f} d" if late > 0 else "no"


def flags(info: StudentResult) -> list[str]:
    """What an instructor should look at for one student: why it is not graded, tests that timed out or stopped the
    sandbox, errors in its own cells, a late submission, manual scores from the gradebook (formgrader)."""
    found = []
    if info.get("reason"):
        found.append(info["reason"])
    tests = info.get("tests", {})
    timed_out = [t for t, o in tests.items() if o.get("timed_out")]
    stopped = [t for t, o in tests.items() if o.get("sandbox_stopped") and not o.get("timed_out")]
    if timed_out:
        found.append(f"timed out: {', '.join(timed_out)}")
    if stopped:
        found.append(f"sandbox stopped or restarted: {', '.join(stopped)}")
    if info.get("cell_errors"):
        found.append(f"error in {info['cell_errors']} of its own cell(s): {info.get('first_cell_error', '')}")
    if info.get("late_s", 0) and info["late_s"] > 0:
        found.append(f"late by {info['late_s'] / 3600:.1f} h")
    manual = info.get("manual", {})
    scored = [f"{c} {_num(m['manual_score'])}" for c, m in manual.items() if m.get("manual_score") is not None]
    if scored:
        found.append(f"manual score: {', '.join(scored)}")
    if any(m.get("extra_credit") for m in manual.values()):
        found.append("extra credit: " + ", ".join(f"{c} {_num(m['extra_credit'])}" for c, m in manual.items()
                                                   if m.get("extra_credit")))
    return found + info.get("manual_review", [])


def class_report(report: ClassReport) -> str:
    """report.txt: per test, how many of the graded students passed it; per student, its flags."""
    graded = [info for info in report["students"].values() if info.get("status") == "graded"]
    lines = [f"{report['assignment']}: {len(graded)} graded of {len(report['students'])} student folder(s)", "",
             f"{'test':<48} {'points':>6}  passed"]
    for test, points in report["cells"].items():
        passed = sum(1 for info in graded if info.get("tests", {}).get(test, {}).get("passed"))
        lines.append(f"{test:<48} {_num(points):>6}  {passed}/{len(graded)}")
    lines += ["", "students to look at:"]
    for student, info in report["students"].items():
        try:
            told = flags(info)
            if info.get("status") != "graded" or told:
                lines.append(f"  {safe(student)} ({info.get('status')}): {'; '.join(told) or 'no reason recorded'}")
        except Exception as exc:  # noqa: BLE001
            lines.append(f"  {safe(student)}: its line could not be made: {exc!r}")
    if lines[-1] == "students to look at:":
        lines[-1] += " none"
    return "\n".join(lines) + "\n"


def summary_table(report: ClassReport) -> str:
    rows = [f"{'student':<32} {'status':<16} {'score':>7}"]
    for student, info in report["students"].items():
        score = f"{_num(info.get('score', 0.0))}/{_num(info.get('max_score', report['max_score']))}"
        rows.append(f"{safe(student):<32} {info['status']:<16} {score:>7}")
    return "\n".join(rows)


def _num(value):
    if value is None or value == "":
        return ""
    return int(value) if float(value).is_integer() else round(value, 2)
