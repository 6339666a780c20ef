"""The benchmarks run the lessons' own code: `distlab.notebook_source.load_definitions` executes the named definitions
of a notebook's code cells, and each lesson still defines every name its benchmark takes from it.

    pytest tests/test_lesson_definitions.py
"""
import pytest

from _bench import load_bench
from distlab.notebook_source import load_definitions, write_notebook


def code(source: str) -> dict:
    return {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}


@pytest.fixture
def notebook(tmp_path):
    path = tmp_path / "lesson.ipynb"
    cells = [code("import os\nSCALE = 2\nraise RuntimeError('a cell that trains')"),
             {"cell_type": "markdown", "metadata": {}, "source": "def not_code(): pass"},
             code("def double(x):\n    return SCALE * x\nprint('a plot')\nunused = 1"),
             code("class Counter:\n    pass\n"),
             code("def increment(self):\n    return double(1)\nSCALE = 3")]
    write_notebook({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, path)
    return path


def test_only_the_named_definitions_run_in_cell_order_with_the_given_names(notebook, capsys):
    ns = load_definitions(notebook, ("double", "Counter", "increment", "SCALE"), {"__name__": "lesson", "given": 1})
    assert ns["double"](5) == 15 and ns["SCALE"] == 3  # the later assignment wins, as in Run All
    assert ns["given"] == 1 and ns["double"].__module__ == "lesson" and ns["increment"](None) == 3
    assert "unused" not in ns and "os" not in ns and "not_code" not in ns and capsys.readouterr().out == ""


def test_a_name_the_notebook_no_longer_defines_is_named(notebook):
    with pytest.raises(LookupError, match=r"lesson.ipynb no longer defines \['halve', 'triple'\]"):
        load_definitions(notebook, ("double", "triple", "halve"))


@pytest.mark.parametrize("name", ["bench_02", "bench_04", "bench_05", "bench_07"])
def test_each_lesson_still_defines_what_its_benchmark_runs(name):
    bench = load_bench(name)
    lesson = bench.load_lesson(bench.QUICK) if name == "bench_02" else bench.load_lesson()  # 02's model's sizes
    assert set(bench.FROM_LESSON) <= set(lesson)
    assert all(callable(lesson[defined]) for defined in bench.FROM_LESSON if not defined.isupper())  # CONFIG
