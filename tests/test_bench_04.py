"""benchmarks/bench_04.py runs (quick mode, in this process) and prints every contender. Timings are never asserted.

    pytest tests/test_bench_04.py
"""
import importlib.util
import re
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_04.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_04", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_lesson_still_defines_what_the_benchmark_runs():
    bench = load_bench()
    lesson = bench.load_lesson()
    assert set(bench.FROM_LESSON) <= set(lesson) and all(callable(lesson[name]) for name in bench.FROM_LESSON)


def test_quick_run_prints_every_contender_and_sp_moves_the_bytes_of_tp(capsys):
    bench = load_bench()
    bench.main(["--quick"])
    output = capsys.readouterr().out
    for contender in ("1 process", "hand-built TP ", "hand-built TP+SP", "DTensor TP"):
        assert contender in output, output
    ratio = float(re.search(r"TP\+SP / TP bytes ([\d.]+)", output).group(1))  # bytes are the algorithm's: asserted
    assert 0.9 < ratio < 1.1, output
