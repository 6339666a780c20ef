"""An LMS's bulk download (a zip of files named <student>_<...>.ipynb) laid out as grade.py reads it: a folder per
student (as nbgrader's zip_collect does).

    python -m autograde.unpack submissions.zip 05_pipeline submissions/05_pipeline/

Each entry's student id is what --pattern's `student_id` group matches (default: the name up to its first `_`, as
Canvas writes `smithjohn_12345_67890_pipeline.ipynb`; for Moodle's `Full Name_12345_assignsubmission_file_x.ipynb`
the id has a space and grade.py will say so: rename, or give a --pattern). An entry whose name ends in one of the set's
notebook names (`pipeline.ipynb`, also `pipeline-1.ipynb` a resubmission) is saved under that name; any other
notebook keeps its name, so grade.py's report names the file found. Only .ipynb entries are taken; no path inside
the zip is followed (only the entry's last name is used), links are skipped, and an entry larger than MAX_BYTES is
refused. Refuses to write into a student folder that already exists.
"""
from __future__ import annotations

import argparse
import re
import stat
import sys
import zipfile
from pathlib import Path

from autograde import notebooks

MAX_BYTES = 64 * 2**20
DEFAULT_PATTERN = r"(?P<student_id>[^_]+)_(?P<rest>.+)"


def unpack(archive: Path, assignment: str, out: Path, pattern: str = DEFAULT_PATTERN) -> dict[str, list[str]]:
    """{student_id: [files written]} from `archive` into `out`/<student_id>/; what was skipped, and why, under "".
    """
    names = [p.name for p in notebooks.assignment_notebooks(assignment)]
    matcher = re.compile(pattern)
    written: dict[str, list[str]] = {"": []}
    with zipfile.ZipFile(archive) as zf:
        for entry in zf.infolist():
            base = entry.filename.replace("\\", "/").rsplit("/", 1)[-1]
            if entry.is_dir() or not base.endswith(".ipynb"):
                continue
            if stat.S_ISLNK(entry.external_attr >> 16):
                written[""].append(f"{entry.filename}: a link (skipped)")
                continue
            if entry.file_size > MAX_BYTES:
                written[""].append(f"{entry.filename}: {entry.file_size} bytes, more than {MAX_BYTES} (skipped)")
                continue
            found = matcher.fullmatch(base)
            if not found or not found.group("student_id").strip(" ."):
                written[""].append(f"{entry.filename}: no student id in its name (--pattern {pattern!r}; skipped)")
                continue
            student = found.group("student_id")
            target = next((n for n in names if re.search(rf"{re.escape(n[:-6])}(-\d+)?\.ipynb$", base)), base)
            folder = out / student
            if folder.exists() and student not in written:
                raise FileExistsError(f"{folder} exists already: unpack into an empty folder")
            folder.mkdir(parents=True, exist_ok=True)
            with zf.open(entry) as source:
                data = source.read(MAX_BYTES + 1)
            (folder / target).write_bytes(data[:MAX_BYTES])
            written.setdefault(student, []).append(target)
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.split("\n")[2:]))
    parser.add_argument("archive", type=Path, help="the LMS's zip of submissions")
    parser.add_argument("assignment", help="e.g. 05_pipeline")
    parser.add_argument("out", type=Path, help="the submissions folder grade.py will read")
    parser.add_argument("--pattern", default=DEFAULT_PATTERN,
                        help="a regular expression for an entry's file name with a `student_id` group "
                             f"(default {DEFAULT_PATTERN!r})")
    args = parser.parse_args(argv)
    if args.assignment not in notebooks.assignments():
        parser.error(f"no assignment {args.assignment!r} (there are: {notebooks.assignments()})")
    try:
        written = unpack(args.archive, args.assignment, args.out, args.pattern)
    except (OSError, zipfile.BadZipFile, re.error, IndexError) as exc:
        parser.error(str(exc))
    for line in written.pop(""):
        print(line, file=sys.stderr)
    print(f"{len(written)} student folder(s) in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
