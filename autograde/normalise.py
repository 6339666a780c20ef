"""What nbgrader would refuse in one notebook, corrected before it sees the class: one student cannot stop another's
grading.

nbgrader grades a whole group of students in one `nbgrader autograde` call, and some faults in a single notebook
end that call for everyone after it: a cell pasted twice in JupyterLab keeps its metadata, so two cells share a
grade_id; nbgrader's DeduplicateIds then empties the earlier one's metadata to `{}`, which CheckCellMetadata reads
as schema version 0 and refuses with SchemaTooOldError, an error nbgrader re-raises instead of skipping the
student. A cell whose metadata is `"nbgrader": {}` (or not a dict, or missing a key) does the same. So every
submission is rewritten here first:

- a cell whose grade_id the assignment's source knows gets the source's nbgrader metadata and cell type back (a test
  cell turned into markdown, a solution cell whose metadata claims `grade: true, points: 100`: nbgrader would score
  the first as an ordinary cell and fail the second with MissingEntry);
- of cells sharing a grade_id the last keeps it (as nbgrader would), and a cell whose nbgrader metadata does not
  validate, or names a grade_id the assignment does not have, becomes an ordinary cell;
- a lone surrogate (half an emoji, which editors produce) becomes U+FFFD: UTF-8 cannot write it.

Every cell still runs as the student wrote it (nbgrader restores a locked cell's source itself); each correction is
reported with the student's grades. What cannot be corrected raises `Refused`, naming the problem, and that student
alone is not graded: a file that is not JSON (a UTF-8 byte-order mark is read), JSON nested deeper than
`MAX_DEPTH` (nbformat and nbgrader recurse once per level), a notebook over `NOTEBOOK_BYTES`, a symbolic link.
"""
from __future__ import annotations

import copy
import functools
import json
import os
import re
import stat
from pathlib import Path

GRADED_ROLES = ("grade", "solution", "locked")
ROLE_KEYS = ("grade", "solution", "locked", "task", "points", "grade_id", "schema_version")
MAX_DEPTH = 100  # an honest notebook nests ~8 deep; nbformat's validation recurses past Python's limit near 800
NOTEBOOK_BYTES = 128 * 2**20  # a notebook is read whole, here and by nbgrader; a 10 MB JupyterLab save is large
LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # json.loads joins every escaped pair: what is left is alone


class Refused(ValueError):
    """A submission grading cannot take; the message says why (the student's `reason` in grades.json)."""


def normalise_submission(path: Path, dest: Path, source: Path | None = None) -> list[str]:
    """Write `path` to `dest` with what nbgrader would refuse corrected, the cells `source` (the assignment's
    notebook) knows restored to its metadata; returns what was corrected. Raises Refused (naming the problem) when
    the file cannot be graded."""
    try:
        notebook = read_submission(path)
        corrections = []
        if isinstance(notebook, dict) and isinstance(notebook.get("cells"), list):
            corrections = normalise_cells(notebook["cells"], source_cells(source) if source else None)
        text = json.dumps(notebook, indent=1, ensure_ascii=False)
        if LONE_SURROGATE.search(text):
            corrections.append(surrogates_replaced(notebook))
            text = LONE_SURROGATE.sub("\ufffd", text)
    except Refused:
        raise
    except Exception as exc:  # RecursionError, MemoryError, anything else this student's JSON provokes
        raise Refused(f"the notebook could not be read ({type(exc).__name__}: {str(exc)[:200]})") from None
    Path(dest).write_text(text + "\n", encoding="utf-8")
    return corrections


def read_submission(path: Path):
    """The JSON in `path`, read without following a link, bounded in size and nesting (else Refused)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise Refused(f"cannot open it: {exc.strerror}" + (" (a symbolic link)" if os.path.islink(path) else ""))
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise Refused("it is not a regular file")
        if info.st_size > NOTEBOOK_BYTES:
            raise Refused(f"it is {info.st_size / 2**20:.0f} MiB, over the {NOTEBOOK_BYTES // 2**20} MiB a notebook "
                          f"may be")
        raw = f.read(NOTEBOOK_BYTES + 1)
    try:
        notebook = json.loads(raw)  # bytes: a UTF-8 byte-order mark (and UTF-16/32) is read as json detects it
    except RecursionError:
        raise Refused(f"its JSON nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise Refused(f"it is not a notebook: its JSON does not parse ({str(exc)[:200]})") from None
    if json_depth(notebook) > MAX_DEPTH:
        raise Refused(f"its JSON nests deeper than {MAX_DEPTH} levels")
    return notebook


def json_depth(value, bound: int = MAX_DEPTH) -> int:
    """How deep lists and dicts nest in `value` (without recursion), counted up to just past `bound`."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > bound:
            break
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest if isinstance(value, (dict, list)) else 0


@functools.lru_cache(maxsize=16)
def source_cells(source: Path) -> dict[str, tuple[str, dict]]:
    """{grade_id: (cell type, nbgrader metadata)} of every cell of the assignment's notebook that has a grade_id."""
    cells = {}
    for cell in json.loads(Path(source).read_text(encoding="utf-8"))["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader")
        if isinstance(meta, dict) and meta.get("grade_id"):
            cells[meta["grade_id"]] = (cell["cell_type"], {k: meta[k] for k in ROLE_KEYS if k in meta})
    return cells


def normalise_cells(cells: list, known: dict[str, tuple[str, dict]] | None) -> list[str]:
    """Correct `cells` in place (module docstring): restored from `known` (None: nothing known), then de-duplicated
    and validated. Returns the corrections, in cell order."""
    from nbformat import NotebookNode, from_dict
    from nbgrader.nbgraderformat import MetadataValidator, ValidationError
    corrections = {}
    if known:
        for index, cell in enumerate(cells):
            restored = restore_from_source(cell, known)
            if restored:
                corrections[index] = [restored]
    validator = MetadataValidator()
    seen = set()
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
            elif known is not None and meta.get("grade_id") not in known:
                problem = f"the assignment has no grade_id {str(meta.get('grade_id'))[:80]!r}"
            seen.add(meta.get("grade_id"))
        if problem:
            del cell["metadata"]["nbgrader"]
            corrections.setdefault(index, []).append(f"an ordinary cell now: {problem}")
    return [f"cell {index}: {text}" for index in sorted(corrections) for text in corrections[index]]


def restore_from_source(cell, known: dict[str, tuple[str, dict]]) -> str | None:
    """Give a cell whose grade_id the source knows the source's cell type and nbgrader metadata; what changed."""
    if not isinstance(cell, dict) or not isinstance(cell.get("metadata"), dict):
        return None
    meta = cell["metadata"].get("nbgrader")
    grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
    if not isinstance(grade_id, str) or grade_id not in known:
        return None
    cell_type, roles = known[grade_id]
    changed = []
    if cell.get("cell_type") != cell_type:
        changed.append(f"cell type ({cell.get('cell_type')!r} for {cell_type!r})")
        cell["cell_type"] = cell_type
        if cell_type == "code":
            cell.setdefault("outputs", [])
            cell.setdefault("execution_count", None)
            cell.pop("attachments", None)
        else:
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
    if {k: meta[k] for k in ROLE_KEYS if k in meta} != roles:
        changed.append("nbgrader metadata")
    if not changed:
        return None
    rest = {k: v for k, v in meta.items() if k not in ROLE_KEYS}
    if "cell_type" in rest:  # nbgrader records the released cell type in its metadata too
        rest["cell_type"] = cell_type
    cell["metadata"]["nbgrader"] = {**rest, **copy.deepcopy(roles)}
    return f"{' and '.join(changed)} of {grade_id!r} restored from the assignment"


def surrogates_replaced(notebook) -> str:
    """The correction that says where lone surrogates were (each cell, or the notebook's own fields)."""
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    where = [str(i) for i, cell in enumerate(cells if isinstance(cells, list) else [])
             if LONE_SURROGATE.search(json.dumps(cell, ensure_ascii=False))]
    place = f"cell {', '.join(where)}" if where else "the notebook's metadata"
    return f"{place}: a lone surrogate (half of a character such as an emoji) replaced by U+FFFD"
