"""A mutant as an edit of the solution cell: the lines it changes, in unified-diff form, applied when the tests run.

    python tests/_mutants.py edit autograde/sets/05_pipeline/mutants/bubble_ignores_chunks.py  # a copy -> an edit
    python tests/_mutants.py show autograde/sets/05_pipeline/mutants/bubble_ignores_chunks.py  # the text it submits
    python tests/_mutants.py copy autograde/sets/05_pipeline/mutants/bubble_ignores_chunks.py  # an edit -> a copy

A mutant file is its header (tests/test_nbgrader.py) and then either the whole cell (a copy) or, from a line that
starts with `@@`, hunks of a diff against the solution cell as released (marker lines removed):

    # replaces: bubble_fraction
    # wrong: forgets the chunks: (p - 1)/m whatever v
    # must-lose: bubble_fraction_values
    @@ -5,3 +5,3 @@
             if not value > 0:
                 raise ValueError(f"{name} must be positive, got {value!r}")
    -    return (num_stages - 1) / (num_chunks * num_microbatches)
    +    return (num_stages - 1) / num_microbatches

A hunk's lines start with ' ' (context; an empty line is an empty context line), '-' (a line of the solution it
removes) or '+' (a line it adds). Its context and '-' lines must stand in the cell, in that order, exactly once after
the previous hunk, or reading the mutant fails, naming the file and the lines it looked for: an edit never submits
something other than what its author saw. The numbers in `@@` lines are for the reader; the lines find the place.
The submitted text is the header's lines, then the edited cell. The diff is against the cell as a file (ending with a
newline, as a copy does); a cell that ends without one says so as diffs do, `\\ No newline at end of file`.
A diff and not "these lines -> those lines" blocks: every contributor reads diffs in review, a one-word change shows
as a '-' and a '+' line next to each other, and `edit` writes it. `edit` keeps the copy when the edit is not shorter
(a rewrite, another algorithm, or a copy that also differs from the solution in comments and docstrings), and
checks that the file it writes submits the copy's text to the byte.
"""
from __future__ import annotations

import difflib
import functools
import re
import sys
from pathlib import Path

from autograde import notebooks

HEADER_LINE = re.compile(r"#\s*([a-z-]+):\s*(.*)")
HUNK_START = "@@"
CONTEXT = 2  # lines of context around a change; more where fewer would match in two places


class EditDoesNotApply(ValueError):
    """A mutant's edit whose lines are no longer in the solution cell (or stand in it twice)."""


def split_header(text: str) -> tuple[str, str]:
    """(header, rest) of a mutant or variant file: its "# key: value" lines and their "#" continuation lines."""
    lines = text.split("\n")
    end, key = 0, False
    for line in lines:
        if HEADER_LINE.match(line):
            key = True
        elif not (line.startswith("#") and key):
            break
        end += 1
    return "".join(line + "\n" for line in lines[:end]), "\n".join(lines[end:])


def header_fields(text: str) -> dict[str, str]:
    """{key: value} of the header of a mutant or variant file's text (a continuation line joins with a space)."""
    fields, key = {}, None
    for line in split_header(text)[0].splitlines():
        found = HEADER_LINE.match(line)
        if found:
            key = found.group(1)
            fields[key] = found.group(2).strip()
        else:
            fields[key] += " " + line.lstrip("#").strip()
    return fields


@functools.lru_cache(maxsize=None)
def solution_cells(assignment: str) -> dict[str, str]:
    """{grade_id: source} of the assignment's solution cells as released: marker lines removed."""
    return {gid: notebooks.strip_solution_markers(code) for source in notebooks.assignment_notebooks(assignment)
            for gid, code in notebooks.solution_cells(source).items()}


NO_NEWLINE = "\\ No newline at end of file"


def is_edit(body: str) -> bool:
    return body.startswith(HUNK_START)


def lines_of(text: str) -> list[str]:
    """`text` as lines that keep their newline (the last one has none when `text` does not end with one)."""
    *lines, last = text.split("\n")
    return [line + "\n" for line in lines] + ([last] if last else [])


def parse_hunks(edit: str, where: str) -> list[tuple[str, list[str], list[str]]]:
    """[(its @@ line, lines it looks for, lines it writes)] of an edit's text, lines with their newline."""
    hunks, previous = [], ""
    for number, line in enumerate(edit.removesuffix("\n").split("\n"), 1):
        if line.startswith(HUNK_START):
            hunks.append((line, [], []))
        elif not hunks:
            raise EditDoesNotApply(f"{where}: the edit must start with an `@@` line, not {line!r}")
        elif line == NO_NEWLINE:  # the line before it ends the text without a newline
            _, old, new = hunks[-1]
            for lines in ((old,) if previous == "-" else (new,) if previous == "+" else (old, new)):
                lines[-1] = lines[-1].removesuffix("\n")
        else:
            kind, text = (line[0], line[1:]) if line else (" ", "")  # an empty line: an empty context line
            if kind not in " -+":
                raise EditDoesNotApply(f"{where}: edit line {number} starts with {kind!r}, not ' ', '-' or '+': "
                                       f"{line!r}")
            _, old, new = hunks[-1]
            if kind in " -":
                old.append(text + "\n")
            if kind in " +":
                new.append(text + "\n")
            previous = kind
    for header, old, _ in hunks:
        if not old:
            raise EditDoesNotApply(f"{where}: hunk {header!r} has no context or '-' line to find its place by")
    return hunks


def apply_edit(cell: str, edit: str, where: str) -> str:
    """The text of solution cell `cell` (as a file: with a final newline) with the hunks of `edit` applied;
    EditDoesNotApply names `where` and the lines that were not found."""
    lines, at = lines_of(cell + "\n"), 0
    for number, (header, old, new) in enumerate(parse_hunks(edit, where), 1):
        found = [i for i in range(at, len(lines) - len(old) + 1) if lines[i:i + len(old)] == old]
        if len(found) != 1:
            looked_for = "".join("    | " + line for line in old)
            problem = "are not in it" if not found else f"stand in it {len(found)} times (add context lines)"
            raise EditDoesNotApply(
                f"{where}: hunk {number} ({header}) does not apply to the solution cell: these lines {problem}, in "
                f"this order{' after hunk ' + str(number - 1) if number > 1 else ''}:\n{looked_for.rstrip()}\n"
                "Write the hunk against the solution cell as it is now, or make the mutant a whole copy.")
        lines[found[0]:found[0] + len(old)] = new
        at = found[0] + len(new)
    return "".join(lines)


def mutant_source(path: Path) -> str:
    """The text a mutant submits as its cell: the file itself if it is a copy, else its header and the edited
    solution cell (autograde/sets/<assignment>/mutants/<name>.py)."""
    path = Path(path)
    text = path.read_text()
    header, body = split_header(text)
    if not is_edit(body):
        if re.search(r"^@@.*@@", body, re.M):  # a blank or other line between the header and the edit
            raise EditDoesNotApply(f"{path}: an edit's first `@@` line must come right after the header")
        return text
    return header + apply_edit(replaced_cell(path, header), body, str(path))


def replaced_cell(path: Path, header: str) -> str:
    """The solution cell that the mutant at `path` (autograde/sets/<assignment>/mutants/<name>.py) names in
    `# replaces:`."""
    assignment = path.parent.parent.name
    replaces, cells = header_fields(header).get("replaces", ""), solution_cells(assignment)
    if replaces not in cells:
        raise EditDoesNotApply(f"{path}: `# replaces: {replaces}` names no solution cell of {assignment}: "
                               f"one of {sorted(cells)}")
    return cells[replaces]


def make_edit(cell: str, new: str, where: str = "edit") -> str:
    """The hunks that turn solution cell `cell` (as a file: with a final newline) into the text `new`: CONTEXT lines
    around each change, more until each hunk's lines stand once in the cell; an empty context line is written empty."""
    a, b = lines_of(cell + "\n"), lines_of(new)
    for context in range(CONTEXT, max(CONTEXT, len(a)) + 1):
        edit = ""
        for line in list(difflib.unified_diff(a, b, n=context))[2:]:  # without the ---/+++ lines
            edit += ("\n" if line == " \n" else line) + ("" if line.endswith("\n") else "\n" + NO_NEWLINE + "\n")
        try:
            if apply_edit(cell, edit, where) == new:
                return edit
        except EditDoesNotApply:
            pass
    raise EditDoesNotApply(f"{where}: no edit gives back the copy")  # not reached: whole-cell context does


def shortest_form(path: Path) -> str:
    """The file's text in its shorter form: an edit when it has fewer lines than the copy, else the copy; both submit
    the same text."""
    path = Path(path)
    copy = mutant_source(path)
    header, body = split_header(copy)
    cell = replaced_cell(path, header)
    if body == cell + "\n":
        return copy
    edit = make_edit(cell, body, str(path))
    return header + edit if len(lines_of(edit)) < len(lines_of(body)) else copy


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("edit", "copy", "show"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    for name in argv[1:]:
        path = Path(name)
        if argv[0] == "show":
            sys.stdout.write(mutant_source(path))
            continue
        before = mutant_source(path)
        path.write_text(shortest_form(path) if argv[0] == "edit" else before)
        assert mutant_source(path) == before, f"{path}: the rewritten file submits other text"
        print(f"{path}: {'an edit' if is_edit(split_header(path.read_text())[1]) else 'a copy'}, "
              f"{len(path.read_text().splitlines())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
