"""What grading must leave as it found it: the course's files, the submissions, and the gradebook's manual scores.

    before = tree_hashes([SOLUTIONS, EXERCISES, AUTOGRADE, submissions], skip=[work, out])
    ... grade ...
    changed = compare_hashes(before, tree_hashes(...))    # ["changed: path", "added: path", ...]
"""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

CACHES = ("__pycache__", ".ipynb_checkpoints")  # written by Python and Jupyter, never by grading


class FilesChanged(Exception):
    """Files that must not change (the course's folders, the submissions) changed while grading."""


def tree_hashes(roots: list[Path], skip: list[Path]) -> dict[str, str]:
    """{path: sha256} of every file under `roots`, except under `skip` folders and caches. Nothing is followed: a
    symbolic link is recorded by its target's name, anything not a file or folder by its type, a file that cannot
    be read by why; a file is read in chunks (a submission's 3 GB file costs time, not memory)."""
    skip = {Path(p).resolve() for p in skip}
    hashes = {}
    for root in roots:
        stack = [Path(root).resolve()]
        while stack:
            folder = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError as exc:
                hashes[str(folder)] = f"unreadable folder: {exc.strerror}"
                continue
            for entry in entries:
                path = Path(entry.path)
                if entry.name in CACHES or path in skip:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append(path)
                else:
                    hashes[str(path)] = file_hash(path)
    return dict(sorted(hashes.items()))


def file_hash(path: Path) -> str:
    """sha256 of a regular file, read in chunks without following a link; else what the path is."""
    try:
        info = path.lstat()
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    if stat.S_ISLNK(info.st_mode):
        return f"symbolic link to {os.readlink(path)!r}"
    if not stat.S_ISREG(info.st_mode):
        return f"not a file: mode {stat.filemode(info.st_mode)}"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    with os.fdopen(fd, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


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
