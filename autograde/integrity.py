"""What grading must leave as it found it: the course's files, the submissions, and the gradebook's manual scores.

    before = tree_hashes([SOLUTIONS, EXERCISES, AUTOGRADE, submissions], skip=[work, out])
    ... grade ...
    changed = compare_hashes(before, tree_hashes(...))    # ["changed: path", "added: path", ...]
"""
from __future__ import annotations

import hashlib
from pathlib import Path


class FilesChanged(Exception):
    """Files that must not change (the course's folders, the submissions) changed while grading."""


def tree_hashes(roots: list[Path], skip: list[Path]) -> dict[str, str]:
    """{path: sha256} of every file under `roots`, except under `skip` folders and caches."""
    skip = [Path(p).resolve() for p in skip]
    hashes = {}
    for root in roots:
        for path in sorted(Path(root).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or ".ipynb_checkpoints" in path.parts:
                continue
            resolved = path.resolve()
            if any(resolved == s or s in resolved.parents for s in skip):
                continue
            hashes[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes


def compare_hashes(before: dict, after: dict) -> list[str]:
    changed = [f"changed: {p}" for p in before if p in after and before[p] != after[p]]
    changed += [f"removed: {p}" for p in before if p not in after]
    changed += [f"added:   {p}" for p in after if p not in before]
    return changed


def reset_manual_scores(db: Path, assignment: str, students: list[str]) -> list[str]:
    """Clear any manual score or extra credit of these students' submissions: autograding never sets them, so one
    that is there now was written by something else. Returns what was reset."""
    from nbgrader.api import Gradebook, MissingEntry

    reset = []
    if not db.exists():
        return reset
    with Gradebook(f"sqlite:///{db}") as gradebook:
        for student in students:
            try:
                submission = gradebook.find_submission(assignment, student)
            except MissingEntry:
                continue
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    if grade.manual_score is not None or grade.extra_credit not in (None, 0):
                        reset.append(f"{student} {grade.name}: manual_score={grade.manual_score}, "
                                     f"extra_credit={grade.extra_credit}")
                        grade.manual_score, grade.extra_credit = None, None
        gradebook.db.commit()
    return reset
