"""The student edition: the course without anything an answer can be read from, for learners to clone or unzip.

    python -m autograde.student_edition OUT [--zip] [--git]

OUT (a new or empty folder) gets the lessons and their scripts, the released exercise notebooks (exercises/),
`distlab` (src/), `course`, labconfig/, the environment files, the book's builder, COURSE_PLAN.md, the licence and
a student README with the two commands: `./course lab`, and `./course test`, which in this edition (no tests/ folder)
runs the exercise notebooks' visible self-checks (`nbgrader validate`). Left out: solutions/ (the nbgrader source),
autograde/ (the trusted checks and their rank-side procedures), tests/ (the variants, the mutants, the hostile
class), benchmarks/ (some import the solutions) and every built or executed copy (build/). pyproject.toml is copied as
it is (the `autograde*` packages it names are simply absent), so that `./course setup` installs the same
environment. `--zip` also writes OUT.zip; `--git` then makes OUT a git repository with one commit.

Before anything is written to OUT, the copy is scanned: a file of a left-out kind, or the code of any solution
block (`### BEGIN SOLUTION` ... `### END SOLUTION` in solutions/; its whole text when it is short, else any run of
RUN_LINES of its lines, whitespace and comments aside) found in any file, and the command exits 1 naming them.
"""
from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from distlab import notebook_source

from autograde import notebooks

INCLUDED = ["lessons", "exercises", "src/distlab", "labconfig", "book", "course", "pyproject.toml",
            "environment.yml", "LICENSE", "COURSE_PLAN.md", ".gitignore"]
# Sections of the repository's README that are the learner's (the rest is for instructors and developers)
README_SECTIONS = ["## Lessons", "## Running code on N ranks from a cell: `distlab`", "## On a real cluster"]
FORBIDDEN = re.compile(r"(^|/)(solutions|autograde|tests|benchmarks|build|variants|mutants|hostile|checks)(/|$)"
                       r"|(^|/)\d\d_[a-z_]+_ranks\.py$|nbgrader_config\.py$|gradebook\.db$")
# Files whose copy, under any name, is a leak: the trusted checks, the solutions, the variants, mutants and attacks
WITHHELD = ["autograde/sets", "solutions"]  # every set's checks, rank code, stand-ins, mutants, variants, attacks
RUN_LINES = 5  # a lesson may share a few lines with a solution (lesson 5's 1F1B loop opens ZB-H1's: 4 lines)
MIN_CHARS = 40  # shorter blocks (`return grad`) are not evidence of anything

START = """# Distributed AI — student edition

{intro}
This is the student edition: the lessons, the exercise notebooks and `distlab`, without the solutions or the
grader's tests.

## Start

Two commands; each works by itself (it first sets up whatever is missing: a virtual environment in `.venv` with the
CPU build of PyTorch and the course's packages, a few minutes the first time; Python ≥ 3.10):

```bash
./course lab     # open the course in JupyterLab
./course test    # run every exercise notebook's visible self-checks
./course test exercises/01_data_parallelism/data_parallelism.ipynb    # ... or one notebook's
```

`./course test` runs each notebook from the top in a fresh kernel (nbgrader's `validate`, what the grader's Validate
button does) and lists each self-check that fails, with its error; "Success! Your notebook passes all the tests."
means every visible check passed. The grade comes from hidden tests that check the same functions on other inputs:
passing the visible checks is necessary, not sufficient. Hand in the notebook file itself (e.g.
`exercises/01_data_parallelism/data_parallelism.ipynb`) the way your instructor says: a folder named after you, an
upload, or `nbgrader submit` where the course has an exchange.

With conda instead: `conda env create -f environment.yml && conda activate distributed-ai && jupyter lab`.

"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="a new or empty folder")
    parser.add_argument("--zip", action="store_true", help="also write OUT.zip")
    parser.add_argument("--git", action="store_true", help="make OUT a git repository with one commit")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        parser.error(f"{out} exists and is not an empty folder")
    if out == notebooks.REPO or notebooks.REPO in out.parents:
        parser.error(f"{out} is inside the repository: pick a folder outside it")
    with tempfile.TemporaryDirectory(dir=out.parent if out.parent.exists() else None) as tmp:
        staged = Path(tmp) / "edition"
        build(staged)
        found = leaks(staged)
        if found:
            print("student_edition: refusing to write an edition an answer can be read from:", *found, sep="\n  ",
                  file=sys.stderr)
            return 1
        out.mkdir(parents=True, exist_ok=True)
        for item in staged.iterdir():
            shutil.move(str(item), out / item.name)
    print(f"student edition: {out} ({sum(1 for p in out.rglob('*') if p.is_file() and '.git' not in p.parts)} files)")
    if args.zip:
        archive = shutil.make_archive(str(out), "zip", root_dir=out.parent, base_dir=out.name)
        print(f"zip: {archive}")
    if args.git:
        git = ["git", "-C", str(out), "-c", "user.name=Distributed AI", "-c", "user.email=course@localhost"]
        subprocess.run(["git", "init", "--quiet", str(out)], check=True)
        subprocess.run([*git, "add", "--all"], check=True)
        subprocess.run([*git, "commit", "--quiet", "--message", "Distributed AI, student edition"], check=True)
    return 0


def build(out: Path, repo: Path = notebooks.REPO) -> None:
    """Copy the included files (those git tracks, where `repo` is a checkout) to `out`, notebooks without outputs,
    and write the student README."""
    for relative in included_files(repo):
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if relative.suffix == ".ipynb":
            notebook = notebook_source.read_notebook(repo / relative)
            for cell in notebook["cells"]:
                if cell["cell_type"] == "code":
                    cell["outputs"], cell["execution_count"] = [], None
            notebook_source.write_notebook(notebook, target)
        else:
            shutil.copy2(repo / relative, target)  # keeps `course` executable
    (out / "README.md").write_text(student_readme((repo / "README.md").read_text()), encoding="utf-8")


def included_files(repo: Path) -> list[Path]:
    try:
        listed = subprocess.run(["git", "-C", str(repo), "ls-files", "-z", "--", *INCLUDED], capture_output=True,
                                check=True, text=True).stdout.split("\0")
        files = [Path(name) for name in listed if name and (repo / name).is_file()]
    except (OSError, subprocess.CalledProcessError):  # not a checkout: every file but caches
        files = [path.relative_to(repo) for name in INCLUDED for path in sorted((repo / name).rglob("*"))
                 if path.is_file() and not {"__pycache__", ".ipynb_checkpoints"} & set(path.parts)]
        files += [Path(name) for name in INCLUDED if (repo / name).is_file()]
    return sorted(files)


def student_readme(readme: str) -> str:
    """The student README: its own start, then the repository README's sections for learners."""
    intro = readme.split("\n## ", 1)[0].split("\n", 1)[1].strip() + "\n"
    sections = []
    for heading in README_SECTIONS:
        start = readme.find("\n" + heading + "\n")
        if start < 0:
            raise ValueError(f"README.md has no section {heading!r} (student_edition.README_SECTIONS)")
        end = readme.find("\n## ", start + 1)
        sections.append(readme[start + 1:end if end >= 0 else len(readme)].strip() + "\n")
    return START.format(intro=intro) + "\n".join(sections)


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def solution_blocks(solutions: Path = notebooks.SOLUTIONS) -> dict[str, list[str]]:
    """{"<assignment>/<grade_id>": the code lines of its solution blocks (no blank or comment-only line)}."""
    blocks = {}
    for notebook in sorted(solutions.glob("*/*.ipynb")):
        for grade_id, source in notebook_source.solution_cells(notebook).items():
            lines, inside = [], False
            for line in source.split("\n"):
                if line.strip() in notebook_source.SOLUTION_MARKERS:
                    inside = line.strip() == notebook_source.SOLUTION_MARKERS[0]
                elif inside and line.strip() and not line.strip().startswith("#"):
                    lines.append(_normal(line))
            blocks[f"{notebook.parent.name}/{grade_id}"] = lines
    return blocks


def readable_text(path: Path) -> str:
    """What a reader sees in the file: a notebook's cells (sources and outputs), any other file's text."""
    if path.suffix == ".ipynb":
        return "\n".join(notebook_source.cell_source(cell) + "\n" + str(cell.get("outputs", ""))
                         for cell in notebook_source.read_notebook(path)["cells"])
    return path.read_text(encoding="utf-8", errors="replace")


def leaks(edition: Path) -> list[str]:
    """Each file of a left-out kind, and each solution block whose code is in a file of `edition`."""
    files = [path for path in sorted(edition.rglob("*")) if path.is_file() and ".git" not in path.parts]
    found = [f"{path.relative_to(edition)}: a file of a kind the edition leaves out" for path in files
             if FORBIDDEN.search(path.relative_to(edition).as_posix())]
    withheld = {hashlib.sha256(path.read_bytes()).hexdigest(): path.relative_to(notebooks.REPO)
                for name in WITHHELD for path in (notebooks.REPO / name).rglob("*") if path.is_file()}
    for path in files:
        if (same := withheld.get(hashlib.sha256(path.read_bytes()).hexdigest())) is not None:
            found.append(f"{path.relative_to(edition)}: a copy of {same}")
    texts = {path: _normal(readable_text(path)) for path in files}
    for name, lines in solution_blocks().items():
        runs = [" ".join(lines)] if len(lines) <= RUN_LINES else \
            [" ".join(lines[i:i + RUN_LINES]) for i in range(len(lines) - RUN_LINES + 1)]
        for path, text in texts.items():
            hit = next((run for run in runs if len(run) >= MIN_CHARS and run in text), None)
            if hit:
                found.append(f"{path.relative_to(edition)}: the solution of {name}: {hit[:80]!r}")
    return found


if __name__ == "__main__":
    sys.exit(main())
