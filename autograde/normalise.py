"""What nbgrader would refuse in one notebook, corrected before it sees the class: one student cannot stop another's
grading.

nbgrader grades a whole group of students in one `nbgrader autograde` call, and some faults in a single notebook
end that call for everyone after it: a cell pasted twice in JupyterLab keeps its metadata, so two cells share a
grade_id; nbgrader's DeduplicateIds then empties the earlier one's metadata to `{}`, which CheckCellMetadata reads
as schema version 0 and refuses with SchemaTooOldError, an error nbgrader re-raises instead of skipping the
student. A cell whose metadata is `"nbgrader": {}` (or not a dict, or missing a key) does the same. So every
submission is rewritten here first: of cells sharing a grade_id the last keeps it (as nbgrader would), and a cell
whose nbgrader metadata does not validate becomes an ordinary cell. Both cells still run as the student wrote them;
only their grading role changes, and each correction is reported with the student's grades. A notebook that is not
JSON at all is copied as it is: nbgrader fails that student alone (grade.py grades such a student by itself).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

GRADED_ROLES = ("grade", "solution", "locked")


def normalise_submission(path: Path, dest: Path) -> list[str]:
    """Write `path` to `dest` with the metadata nbgrader would refuse removed; returns what was corrected."""
    try:
        notebook = json.loads(Path(path).read_text())
        cells = notebook["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        cells = None
    if not isinstance(cells, list):  # not a notebook: nbgrader fails this student alone
        shutil.copy(path, dest)
        return []
    from nbformat import NotebookNode, from_dict
    from nbgrader.nbgraderformat import MetadataValidator, ValidationError
    validator = MetadataValidator()
    corrections, seen = [], set()
    for index in reversed(range(len(cells))):  # the last of cells sharing a grade_id keeps it, as in nbgrader
        cell = cells[index]
        if not isinstance(cell, dict) or not isinstance(cell.get("metadata"), dict) \
                or "nbgrader" not in cell["metadata"]:
            continue
        meta = cell["metadata"]["nbgrader"]
        problem = None
        try:
            node = from_dict(cell)
            if not isinstance(node.metadata.nbgrader, NotebookNode):
                raise ValidationError("not a dict")
            validator.validate_cell(node)
        except Exception as exc:  # ValidationError, SchemaTooOldError (`{}`), a missing key, a wrong type
            problem = f"its nbgrader metadata is invalid ({type(exc).__name__}: {str(exc).splitlines()[0][:80]})"
        if problem is None and any(meta.get(role) for role in GRADED_ROLES):
            if meta.get("grade_id") in seen:
                problem = f"it repeats grade_id {meta.get('grade_id')!r} of a later cell"
            seen.add(meta.get("grade_id"))
        if problem:
            del cell["metadata"]["nbgrader"]
            corrections.append(f"cell {index}: an ordinary cell now: {problem}")
    with open(dest, "w") as f:
        json.dump(notebook, f, indent=1, ensure_ascii=False)
    return corrections[::-1]
