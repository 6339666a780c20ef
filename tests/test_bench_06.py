"""benchmarks/bench_06.py runs (quick mode, in this process) and prints every contender. Timings are never asserted.

    pytest tests/test_bench_06.py
"""
import re

from _bench import load_bench


def test_quick_run_prints_every_contender_and_ratio(capsys):
    bench = load_bench("bench_06")
    bench.main(["--quick"])
    output = capsys.readouterr().out
    for contender in ("cap 0.01 MB", "cap 25 MB", "after backward", "no communication", "fp32", "bf16 autocast",
                      "fp16 autocast"):
        assert contender in output, output
    assert re.search(r"autocast bf16 / fp32 time [\d.]+; fp16 / fp32 time [\d.]+", output), output
    assert re.search(r"2 ranks: best cap [\d.]+ MB", output), output
