"""The statement's stand-ins have the statement's signatures.

    pytest tests/test_statement_standins.py

One mistake, one deduction: where a later part of a set is judged with the statement's versions of earlier functions in
place of the learner's (`STAND_IN[...] = ...` in `autograde/sets/<set>/statement.py`), a learner's code calls those
stand-ins exactly as it would call its own functions — by position or by keyword. A stand-in whose parameters are named
otherwise (`m, hw` for the statement's `model, hardware`) turns a correct keyword call into a TypeError in every cell
that uses it (issue 47: a correct `best_config` lost 9 points). Read with `ast` only: nothing here runs the checks.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograde import notebooks
from distlab import notebook_source

REPO = Path(__file__).resolve().parents[1]
SETS = REPO / "autograde" / "sets"


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
    """The stand-ins a statement file defines (`STAND_IN["name"] = a function or a lambda`): each name's signature."""
    tree = ast.parse(module.read_text())
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    found = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if not (isinstance(target, ast.Subscript) and ast.unparse(target.value) == "STAND_IN"):
            continue
        name, value = target.slice.value, node.value
        if isinstance(value, ast.Lambda):
            found[name] = _signature(value.args)
        else:
            assert isinstance(value, ast.Name) and value.id in functions, f"{module.name}: {name}'s stand-in"
            found[name] = _signature(functions[value.id].args)
    return found


def _statement_signatures(assignment: str) -> dict[str, list]:
    """Each top-level function of the released notebooks' code cells: its signature."""
    found = {}
    for notebook in notebooks.assignment_notebooks(assignment, REPO / "exercises"):
        for cell in notebook_source.read_notebook(notebook)["cells"]:
            if cell["cell_type"] != "code":
                continue
            try:
                tree = ast.parse(notebook_source.cell_source(cell))
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, ast.FunctionDef):
                    found[node.name] = _signature(node.args)
    return found


WITH_STANDINS = sorted(p.parent.name for p in SETS.glob("*/statement.py") if _standins(p))


def test_some_sets_have_standins():
    assert {"04_tensor_parallelism", "06_mixed_precision", "07_inference"} <= set(WITH_STANDINS)


@pytest.mark.parametrize("assignment", WITH_STANDINS)
def test_standins_have_the_statements_signatures(assignment):
    statement = _statement_signatures(assignment)
    for name, signature in _standins(SETS / assignment / "statement.py").items():
        assert name in statement, f"{assignment}: the stand-in {name} has no function of that name in the statement"
        assert signature == statement[name], (
            f"{assignment}: the stand-in for {name} takes {signature}, the statement's {statement[name]}: a learner "
            "who calls it by keyword would fail where the stand-in replaces their function")


@pytest.mark.parametrize("assignment", WITH_STANDINS)
def test_no_standin_is_in_the_sandbox_before_a_check_sends_it(assignment):
    """A stand-in computes an earlier part's right answer: were it in the sandbox's namespace (the rank-side file runs
    there, beside the notebook), a notebook could return its result (`try: return _prefill_time(...)`) or keep it from
    a call that handed it over. So the rank-side file defines none of them, a call gets only the sections it needs,
    and the checks that hand stand-ins over run after the checks of the functions they stand in for."""
    statement = ast.parse((SETS / assignment / "statement.py").read_text())
    defined = {node.name for node in ast.walk(statement) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    ranks = ast.parse((SETS / assignment / "ranks.py").read_text())
    in_ranks = {node.name for node in ast.walk(ranks) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    assert not defined & in_ranks, f"{assignment}/ranks.py defines stand-ins: {sorted(defined & in_ranks)}"
    assert "STAND_IN" not in (SETS / assignment / "ranks.py").read_text()


def test_a_call_gets_only_the_standins_it_needs():
    from autograde.sets._common import statement_source
    for names, sent, withheld in [(["shard_heads"], ["_shard_heads"], ["_decode_step_time", "_pass_time", "_prefill_time"]),
                                  (["kv_cache_bytes_per_token", "shard_heads"], ["_kv_cache_bytes_per_token"],
                                   ["_decode_step_time", "_pass_time", "_prefill_time"]),
                                  (["prefill_time"], ["_prefill_time", "_pass_time", "_shard_heads"],
                                   ["_decode_step_time"])]:
        source = statement_source("07_inference", names)
        assert all(f"def {n}(" in source for n in sent) and not any(f"def {n}(" in source for n in withheld), names
        namespace = {}
        exec(compile(source, "<statement>", "exec"), namespace)
        assert set(names) - {"cost_model"} <= set(namespace["STAND_IN"])


@pytest.mark.parametrize("fails", [False, True], ids=["returns", "raises"])
def test_with_stand_ins_swaps_for_one_call_and_then_empties_its_private_namespace(fails):
    """What the rank-side files rely on (they no longer clear it themselves): during the call the notebook's name is
    the stand-in; after it, returned or raised, the notebook's own function is back and the private namespace that
    held the stand-ins is empty (a function and its globals are a cycle the GC keeps)."""
    from autograde.sets._common import statement_source
    private, notebook = {}, {"delayed_scale": "the learner's"}
    exec(compile(statement_source("06_mixed_precision", ["delayed_scale"]), "<statement>", "exec"), private)
    stand_in = private["STAND_IN"]["delayed_scale"]

    def run():
        assert notebook["delayed_scale"] is stand_in
        if fails:
            raise ValueError("the learner's code raised")
        return "answer"

    if fails:
        with pytest.raises(ValueError, match="the learner's code raised"):
            private["with_stand_ins"](notebook, ["delayed_scale"], run)
    else:
        assert private["with_stand_ins"](notebook, ["delayed_scale"], run) == "answer"
    assert notebook == {"delayed_scale": "the learner's"} and private == {}


def test_statement_sections_are_read_again_when_the_file_changes(tmp_path, monkeypatch):
    """statement_sections is cached; a statement file rewritten (a test's, an instructor's edit) is read again."""
    from autograde.sets import _common
    monkeypatch.setattr(_common, "SETS_DIR", tmp_path)
    (tmp_path / "99_example").mkdir()
    path = tmp_path / "99_example" / "statement.py"
    path.write_text("described\n# === a\nA = 1\n")
    first = _common.statement_sections("99_example")
    assert dict(first) == {"a": "A = 1\n"} and _common.statement_sections("99_example") is first  # read once
    path.write_text("described\n# === a\nA = 2\n# === b\n# needs: a\nB = A\n")
    assert dict(_common.statement_sections("99_example")) == {"a": "A = 2\n", "b": "# needs: a\nB = A\n"}


def test_checks_that_hand_standins_over_run_after_the_checks_they_stand_in_for():
    """The order the grader runs a set's checks in (`checks_of`): a check that hands the learner's code the statement's
    version of a function runs after every check that judges the learner's version of it."""
    from autograde.sets._common import checks_of
    before_after = {"04_tensor_parallelism": (["copy_to_tp_region_forward_backward",
                                               "reduce_from_tp_region_forward_backward", "tp_mlp_matches_single_process"],
                                              ["column_parallel_matches_linear", "row_parallel_splits_full_input"]),
                    # 06: every delayed_scale cell runs before spike_cost's (its bad-input cell too: spike_cost's bad
                    # inputs have their own cell, after them; mutant spike_keeps_the_stand_in)
                    "06_mixed_precision": (["delayed_scale_formula", "delayed_scale_keeps_previous_scale",
                                            "delayed_scale_rejects_bad_input"],
                                           ["spike_cost_margin", "spike_cost_steps"]),
                    "07_inference": (["decode_step_time_rejects_bad_input", "prefill_time_compute_bound",
                                      "prefill_time_chunks_in_a_pipeline", "prefill_time_rejects_bad_input"],
                                     ["best_config_is_the_best", "best_config_keeps_first_token_promise"])}
    for assignment, (judged, handing_over) in before_after.items():
        order = list(checks_of(assignment))
        assert max(order.index(c) for c in judged) < min(order.index(c) for c in handing_over), (assignment, order)
    # 07: kv_cache_bytes_per_token's checks hand over the statement's shard_heads
    order = list(checks_of("07_inference"))
    assert max(order.index(c) for c in ["shard_heads_contiguous_groups", "shard_heads_replicates_kv_heads",
                                        "shard_heads_rejects_bad_input", "tp_decode_matches_single_process"]) < min(
        order.index(c) for c in ["kv_cache_bytes_published_models", "kv_cache_bytes_of_a_rank",
                                 "kv_cache_bytes_uneven_stages", "kv_cache_bytes_rejects_bad_input"]), order
