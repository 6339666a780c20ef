"""benchmarks/bench_07.py runs (quick mode, in this process) and prints every contender beside the cost model's
prediction. Timings are never asserted; the tokens are (the benchmark checks each contender against one process).

    pytest tests/test_bench_07.py
"""
import importlib.util
import re
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_07.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_07", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_lesson_still_defines_what_the_benchmark_runs():
    bench = load_bench()
    lesson = bench.load_lesson()
    assert set(bench.FROM_LESSON) <= set(lesson) and all(callable(lesson[name]) for name in bench.FROM_LESSON)


def test_quick_run_prints_every_contender_with_a_prediction(capsys):
    bench = load_bench()
    assert bench.main(["--quick"]) == 0
    output = capsys.readouterr().out
    for contender in ("TP 1", "TP 2", "1 process, 1 request", "PP 2, 1 in flight", "PP 2, 2 in flight"):
        line = next((line for line in output.splitlines() if line.startswith(contender + " ")), None)
        assert line is not None, output
        measured, predicted = (float(x) for x in re.findall(r"([\d.]+)x", line))
        assert measured > 0 and predicted > 0, line
