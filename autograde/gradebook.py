"""The set's one gradebook, `--work/gradebook.db`: what formgrader and `nbgrader export` read, whatever --jobs is.

    python -m autograde.gradebook grading/07_inference   # manual scores from formgrader into grades.csv/json/report

With --jobs N each group of students is graded in a gradebook of its own (`--work/group-<k>`), and `--only` in
`--work/regrade`; after grading, each graded student's submission is copied from there into the set's gradebook
(replacing the one there), its submitted/ and autograded/ notebooks into the work folder beside it, for formgrader.

Manual marks (nbgrader's Grade.manual_score and extra_credit, Comment.manual_comment) are the instructor's when they
are in the set's gradebook as a run starts: `instructor_marks` reads them then, and `put_back` writes them over the
regraded submission (a cell whose autograded score changed meanwhile is flagged for review). Any that appear in a
group's gradebook while grading is reset (integrity.reset_manual_scores): the sandbox cannot reach a gradebook, so
one there was written by something else.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import warnings
from pathlib import Path

from autograde.results import GRADED, StudentResult

MARKS = ("manual_score", "extra_credit")


def instructor_marks(db: Path, assignment: str) -> dict:
    """{student: {cell name: {"notebook", "manual_score", "extra_credit", "auto_score", "manual_comment"}}}: every
    manual mark in the gradebook `db` (none when it does not exist), with the autograder's score it was set over."""
    from nbgrader.api import Gradebook, MissingEntry

    marks: dict = {}
    if not Path(db).exists():
        return marks
    with Gradebook(f"sqlite:///{db}") as gradebook:
        try:
            submissions = gradebook.find_assignment(assignment).submissions
        except MissingEntry:
            return marks
        for submission in submissions:
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    if grade.manual_score is not None or grade.extra_credit not in (None, 0):
                        marks.setdefault(submission.student_id, {}).setdefault(grade.name, {}).update(
                            notebook=notebook.name, manual_score=grade.manual_score,
                            extra_credit=grade.extra_credit, auto_score=grade.auto_score)
                for comment in notebook.comments:
                    if comment.manual_comment:
                        marks.setdefault(submission.student_id, {}).setdefault(comment.name, {}).update(
                            notebook=notebook.name, manual_comment=comment.manual_comment)
    return marks


def copy_submission(source_db: Path, target_db: Path, assignment: str, student: str) -> None:
    """`student`'s submission in `source_db` (as autograding left it) into `target_db`, replacing the one there."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{source_db}") as source, Gradebook(f"sqlite:///{target_db}") as target, \
            warnings.catch_warnings():
        # nbgrader's add_submission makes SQLAlchemy warn ("Object of type <SubmittedNotebook> not in session"): as
        # in grade.run_groups, nothing an instructor can act on
        warnings.filterwarnings("ignore", "Object of type")
        submitted = source.find_submission(assignment, student)
        who = submitted.student
        target.update_or_create_student(student, first_name=who.first_name, last_name=who.last_name,
                                        email=who.email, lms_user_id=who.lms_user_id)
        try:
            target.remove_submission(assignment, student)
        except MissingEntry:
            pass
        copy = target.add_submission(assignment, student)
        copy.timestamp, copy.extension = submitted.timestamp, submitted.extension
        for notebook in submitted.notebooks:
            into = target.find_submission_notebook(notebook.name, assignment, student)
            into.flagged, into.late_submission_penalty = notebook.flagged, notebook.late_submission_penalty
            for grade in notebook.grades:
                to = target.find_grade(grade.name, notebook.name, assignment, student)
                for field in ("auto_score", *MARKS, "needs_manual_grade"):
                    setattr(to, field, getattr(grade, field))
            for comment in notebook.comments:
                to = target.find_comment(comment.name, notebook.name, assignment, student)
                to.auto_comment, to.manual_comment = comment.auto_comment, comment.manual_comment
        target.db.commit()


def put_back(db: Path, assignment: str, student: str, marks: dict) -> list[str]:
    """The instructor's `marks` (instructor_marks' entry of `student`) written over its regraded submission; returns
    a line per cell whose autograded score changed since the mark was set (keep or change the mark: formgrader)."""
    from nbgrader.api import Gradebook, MissingEntry

    review = []
    with Gradebook(f"sqlite:///{db}") as gradebook:
        for name, mark in marks.items():
            try:
                if "manual_score" in mark:
                    grade = gradebook.find_grade(name, mark["notebook"], assignment, student)
                    grade.manual_score, grade.extra_credit = mark["manual_score"], mark["extra_credit"]
                    grade.needs_manual_grade = grade.manual_score is None and grade.auto_score is None
                    if grade.auto_score != mark["auto_score"]:
                        review.append(f"manual score of {name} kept; the autograder's changed from "
                                      f"{mark['auto_score']} to {grade.auto_score}: review it")
                if mark.get("manual_comment"):
                    comment = gradebook.find_comment(name, mark["notebook"], assignment, student)
                    comment.manual_comment = mark["manual_comment"]
            except MissingEntry:
                review.append(f"manual mark of {name} dropped: the assignment has no such cell now")
        gradebook.db.commit()
    return review


def gather(students: dict[str, StudentResult], groups: list, class_db: Path, assignment: str, marks: dict) -> None:
    """Each graded student of `groups` into the set's gradebook `class_db` (and its notebooks into the folder beside
    it, where formgrader looks), the instructor's `marks` put back; its scores then read from there."""

    root = class_db.parent
    for group in groups:
        for student in group.students:
            info = students[student]
            if info["status"] != GRADED:
                continue
            try:
                if group.folder != root:
                    copy_submission(group.folder / "gradebook.db", class_db, assignment, student)
                    for kind in ("submitted", "autograded"):
                        target = root / kind / student
                        if target.exists():
                            shutil.rmtree(target)
                        shutil.copytree(group.folder / kind / student, target, symlinks=True)
                info.pop("manual_review", None)
                review = put_back(class_db, assignment, student, marks[student]) if marks.get(student) else []
                if review:
                    info["manual_review"] = review
                info["gradebook"] = str(class_db)
            except Exception as exc:  # noqa: BLE001 - the group's scores stand; formgrader misses this one
                info["reason"] = f"not in the set's gradebook {class_db}: {exc!r}"
    reread(students, assignment, [s for g in groups for s in g.students])


def reread(students: dict[str, StudentResult], assignment: str, only: list[str] | None = None) -> list[str]:
    """Scores of the graded students (`only` these) read again from their gradebooks (`gradebook`): the
    autograder's, overridden by manual scores, and the manual marks as `manual`. Returns those read."""
    from autograde.grade import read_gradebook

    wanted: dict[Path, list[str]] = {}
    for student, info in students.items():
        if info.get("status") == GRADED and info.get("gradebook") and (only is None or student in only):
            wanted.setdefault(Path(info["gradebook"]), []).append(student)
    done = []
    for db, names in wanted.items():
        if not db.exists():
            continue
        scores, marks = read_gradebook(db, assignment, names), instructor_marks(db, assignment)
        for student in names:
            if student not in scores:
                continue
            info = students[student]
            info.update(scores[student])
            info.pop("score_before_late_penalty", None)
            if marks.get(student):
                info["manual"] = marks[student]
            else:
                info.pop("manual", None)
            done.append(student)
    return done


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.split("\n")[2:]))
    parser.add_argument("out", type=Path, help="a set's results (the --out of python -m autograde.grade)")
    args = parser.parse_args(argv)
    from autograde.grade import mark_late, write_report
    from autograde.report import class_report

    try:
        report = json.loads((args.out / "grades.json").read_text())
    except (OSError, ValueError) as exc:
        parser.error(f"{args.out} holds no grades.json grade.py wrote: {exc}")
    students = report["students"]
    done = reread(students, report["assignment"])
    mark_late({s: students[s] for s in done}, report.get("due"), report.get("late_penalty") or 0.0)
    write_report(report, args.out)
    print(class_report(report))
    print(f"{len(done)} student(s) read again from the gradebook; with manual marks: "
          f"{', '.join(s for s in done if students[s].get('manual')) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
