"""benchmarks/bench_02.py runs (quick mode, in this process) and prints every contender. Timings are never asserted.

    pytest tests/test_bench_02.py
"""
import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_02.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_02", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_lesson_still_defines_what_the_benchmark_runs():
    bench = load_bench()
    lesson = bench.load_lesson(bench.QUICK)
    assert set(lesson) == set(bench.FROM_LESSON) and all(callable(v) for v in lesson.values())


def test_quick_run_prints_every_contender_with_ratios(capsys):
    bench = load_bench()
    bench.main(["--quick"])
    output = capsys.readouterr().out
    rows = [line for line in output.splitlines() if line.startswith("| 2 |")]
    assert [row.split("|")[2].strip() for row in rows] == [
        "stage 0 (lesson)", "stage 1 (lesson)", "stage 2 (lesson)", "stage 3 (lesson)", "FSDP2 (fully_shard)"], output
    assert all(len(row.split("|")) == 9 for row in rows), output
    held = [int(row.split("|")[3].replace(",", "")) for row in rows]
    assert held[0] > held[1] > held[2] > held[3] > 0, output  # bytes are deterministic: each stage holds less
