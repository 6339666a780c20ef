"""benchmarks/bench_06.py runs (quick mode, in this process) and prints every contender. Timings are never asserted.

    pytest tests/test_bench_06.py
"""
import importlib.util
import re
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_06.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_06", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_quick_run_prints_every_contender_and_ratio(capsys):
    bench = load_bench()
    bench.main(["--quick"])
    output = capsys.readouterr().out
    for contender in ("cap 0.01 MB", "cap 25 MB", "after backward", "no communication", "fp32", "bf16 autocast",
                      "fp16 autocast"):
        assert contender in output, output
    assert re.search(r"autocast bf16 / fp32 time [\d.]+; fp16 / fp32 time [\d.]+", output), output
    assert re.search(r"2 ranks: best cap [\d.]+ MB", output), output
