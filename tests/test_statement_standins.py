"""The statement's stand-ins have the statement's signatures.

    pytest tests/test_statement_standins.py

One mistake, one deduction: where a later part of a set is judged with the statement's versions of earlier functions
in place of the learner's (`STATEMENT` in `autograde/checks/<set>_ranks.py`), a learner's code calls those stand-ins
exactly as it would call its own functions — by position or by keyword. A stand-in whose parameters are named
otherwise (`m, hw` for the statement's `model, hardware`) turns a correct keyword call into a TypeError in every cell
that uses it (issue 47: a correct `best_config` lost 9 points). Read with `ast` only: nothing here runs the checks.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograde import notebooks

REPO = Path(__file__).resolve().parents[1]
CHECKS = REPO / "autograde" / "checks"


def _signature(args: ast.arguments) -> list[tuple[str, str, str | None]]:
    """(kind, name, default's source) of each parameter, in order."""
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + [ast.unparse(d) for d in args.defaults]
    params = [("positional", a.arg, d) for a, d in zip(positional, defaults)]
    if args.vararg:
        params.append(("*", args.vararg.arg, None))
    params += [("keyword", a.arg, None if d is None else ast.unparse(d))
               for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        params.append(("**", args.kwarg.arg, None))
    return params


def _standins(module: Path) -> dict[str, list]:
    """The STATEMENT dict's stand-ins: each name's signature (a function named in the dict, or a lambda)."""
    tree = ast.parse(module.read_text())
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    statement = next((node.value for node in tree.body if isinstance(node, ast.Assign)
                      and any(isinstance(t, ast.Name) and t.id == "STATEMENT" for t in node.targets)), None)
    if statement is None:
        return {}
    assert isinstance(statement, ast.Dict), f"{module.name}: STATEMENT is not a dict literal"
    found = {}
    for key, value in zip(statement.keys, statement.values):
        if isinstance(value, ast.Lambda):
            found[key.value] = _signature(value.args)
        else:
            assert isinstance(value, ast.Name) and value.id in functions, f"{module.name}: {key.value}'s stand-in"
            found[key.value] = _signature(functions[value.id].args)
    return found


def _statement_signatures(assignment: str) -> dict[str, list]:
    """Each top-level function of the released notebooks' code cells: its signature."""
    found = {}
    for notebook in notebooks.assignment_notebooks(assignment, REPO / "exercises"):
        for cell in notebooks.read_notebook(notebook)["cells"]:
            if cell["cell_type"] != "code":
                continue
            try:
                tree = ast.parse(notebooks.cell_source(cell))
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, ast.FunctionDef):
                    found[node.name] = _signature(node.args)
    return found


WITH_STANDINS = sorted(p.name.removesuffix("_ranks.py") for p in CHECKS.glob("*_ranks.py") if _standins(p))


def test_some_sets_have_standins():
    assert {"04_tensor_parallelism", "07_inference"} <= set(WITH_STANDINS)


@pytest.mark.parametrize("assignment", WITH_STANDINS)
def test_standins_have_the_statements_signatures(assignment):
    statement = _statement_signatures(assignment)
    for name, signature in _standins(CHECKS / f"{assignment}_ranks.py").items():
        assert name in statement, f"{assignment}: the stand-in {name} has no function of that name in the statement"
        assert signature == statement[name], (
            f"{assignment}: the stand-in for {name} takes {signature}, the statement's {statement[name]}: a learner "
            "who calls it by keyword would fail where the stand-in replaces their function")
