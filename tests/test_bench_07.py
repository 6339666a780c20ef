"""benchmarks/bench_07.py runs (quick mode, in this process) and prints every contender beside the cost model's
prediction. Timings are never asserted; the tokens are (the benchmark checks each contender against one process).

    pytest tests/test_bench_07.py
"""
import re

from _bench import load_bench


def test_quick_run_prints_every_contender_with_a_prediction(capsys):
    bench = load_bench("bench_07")
    assert bench.main(["--quick"]) == 0
    output = capsys.readouterr().out
    for contender in ("TP 1", "TP 2", "1 process, 1 request", "PP 2, 1 in flight", "PP 2, 2 in flight"):
        line = next((line for line in output.splitlines() if line.startswith(contender + " ")), None)
        assert line is not None, output
        measured, predicted = (float(x) for x in re.findall(r"([\d.]+)x", line))
        assert measured > 0 and predicted > 0, line
