"""benchmarks/bench_05.py runs (quick mode, in this process) and prints every contender. Timings are never asserted.

    pytest tests/test_bench_05.py
"""
import importlib.util
import re
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_05.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_05", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_lesson_still_defines_what_the_benchmark_runs():
    bench = load_bench()
    lesson = bench.load_lesson()
    assert set(bench.FROM_LESSON) <= set(lesson)
    assert lesson["gpipe"](4, 8)[0][:2] == [("F", 0, 0), ("F", 1, 0)]


def test_quick_run_prints_every_contender_with_the_simulated_makespans(capsys):
    bench = load_bench()
    bench.main(["--quick"])
    output = capsys.readouterr().out
    setup = bench.QUICK
    step, m = setup["t_f"] + setup["t_b"], setup["microbatches"]
    simulated = {"GPipe": (m + bench.P - 1) * step, "1F1B": (m + bench.P - 1) * step,
                 "interleaved": m * step + (bench.P - 1) * step / bench.V}
    for maker in ("hand-built", "torch"):
        for kind, expected in simulated.items():
            row = re.search(rf"{maker} {kind}\s+(\d+)\s+(\d+)\s+([\d.]+)x", output)
            assert row, output
            assert int(row.group(2)) == round(expected * 1e3), (kind, output)  # the schedule's, not the machine's
