"""Reading the course's notebooks as plain JSON: cells, their sources and nbgrader metadata, a solution cell's code,
and a lesson's own definitions executed out of it. Standard library only (torch is imported by `load_solution`
alone), so the grader, the benchmarks, the book and the tests read a notebook the same way without importing the
grader.

    from distlab.notebook_source import load_definitions, solution_source
    source = solution_source("solutions/01_data_parallelism/data_parallelism.ipynb", "ring_all_reduce")
    ns = load_definitions("lessons/05_pipeline.ipynb", ("gpipe",), {"torch": torch})
"""
from __future__ import annotations

import json
from pathlib import Path

SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
# Where tests/test_browser.py saves each notebook whose Run All passed in JupyterLab, with its outputs, and where
# book/build.py reads them: the path below the repository of `executed_copy(root, notebook)`.
EXECUTED = Path("build", "executed")


def executed_copy(root, notebook) -> Path:
    """The executed copy of `notebook` (a path below the repository `root`): build/executed/<its path>."""
    return Path(root) / EXECUTED / Path(notebook).relative_to(root)


def read_notebook(path) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_notebook(notebook: dict, path) -> None:
    """Write as nbformat does (1-space indent, sorted keys, trailing newline)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(notebook, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")


def cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def nbgrader_metadata(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def grade_id(cell: dict) -> str | None:
    return nbgrader_metadata(cell).get("grade_id")


def solution_cells(notebook_path) -> dict[str, str]:
    """{grade_id: source} of the notebook's code cells that learners fill in (nbgrader `solution: true`)."""
    return {grade_id(c): cell_source(c) for c in read_notebook(notebook_path)["cells"]
            if c["cell_type"] == "code" and nbgrader_metadata(c).get("solution")}


def test_cells(notebook_path) -> dict[str, float]:
    """{grade_id: points} of the notebook's autograded test cells (nbgrader `grade: true`, code)."""
    return {grade_id(c): nbgrader_metadata(c).get("points", 0) for c in read_notebook(notebook_path)["cells"]
            if c["cell_type"] == "code" and nbgrader_metadata(c).get("grade")}


def strip_solution_markers(source: str) -> str:
    """The source without its `### BEGIN SOLUTION` / `### END SOLUTION` lines (the code between them stays)."""
    return "\n".join(line for line in source.split("\n") if line.strip() not in SOLUTION_MARKERS)


def solution_source(notebook_path, grade_id: str) -> str:
    """The source of solution cell `grade_id` in an nbgrader source notebook, marker lines removed: runnable code."""
    cells = solution_cells(notebook_path)
    if grade_id not in cells:
        raise KeyError(f"{notebook_path}: no solution cell with grade_id {grade_id!r} (there are: {sorted(cells)})")
    return strip_solution_markers(cells[grade_id])


def load_solution(notebook_path, grade_id: str, namespace: dict | None = None) -> dict:
    """Execute solution cell `grade_id` (after `import torch`, `import torch.distributed as dist`, ...) and return
    its namespace, e.g. `load_solution(path, "ring_all_reduce")["ring_all_reduce"]`. The functions are defined in a
    module-less namespace, so cloudpickle (and `distlab.launch`) sends them by value."""
    import math

    import torch
    import torch.distributed as dist
    import torch.nn as nn

    ns = {"__name__": f"solution_{grade_id}", "math": math, "torch": torch, "dist": dist, "nn": nn}
    ns.update(namespace or {})
    exec(compile(solution_source(notebook_path, grade_id), f"{notebook_path}#{grade_id}", "exec"), ns)
    return ns


def load_definitions(notebook_path, names, namespace: dict | None = None) -> dict:
    """Execute the top-level definitions of `names` in a notebook's code cells, in cell order, and return the
    namespace: each `def` or `class` of one of those names and each assignment to one, no other statement (no cell's
    training or launching runs). `namespace` holds what they use: modules, constants, stand-ins. Like `load_solution`,
    the functions are defined in a module-less namespace, so cloudpickle (and `distlab.launch`) sends them by value.
    The benchmarks run a lesson's own code this way, e.g. `load_definitions(path, ("gpipe",), {"torch": torch})`.
    Raises LookupError naming what the notebook no longer defines."""
    import ast

    wanted = set(names)

    def defines(node) -> bool:
        if isinstance(node, ast.Assign):
            return any(isinstance(target, ast.Name) and target.id in wanted for target in node.targets)
        return getattr(node, "name", None) in wanted

    ns = dict(namespace or {})
    for cell in read_notebook(notebook_path)["cells"]:
        if cell["cell_type"] == "code":
            body = [node for node in ast.parse(cell_source(cell)).body if defines(node)]
            exec(compile(ast.Module(body=body, type_ignores=[]), str(notebook_path), "exec"), ns)
    missing = sorted(wanted - set(ns))
    if missing:
        raise LookupError(f"{Path(notebook_path).name} no longer defines {missing}")
    return ns
