"""benchmarks/bench_04.py runs (quick mode, in this process) and prints every contender. Timings are never asserted.

    pytest tests/test_bench_04.py
"""
import re

from _bench import load_bench


def test_quick_run_prints_every_contender_and_sp_moves_the_bytes_of_tp(capsys):
    bench = load_bench("bench_04")
    bench.main(["--quick"])
    output = capsys.readouterr().out
    for contender in ("1 process", "hand-built TP ", "hand-built TP+SP", "DTensor TP"):
        assert contender in output, output
    ratio = float(re.search(r"TP\+SP / TP bytes ([\d.]+)", output).group(1))  # bytes are the algorithm's: asserted
    assert 0.9 < ratio < 1.1, output
