"""benchmarks/bench_02.py runs (quick mode, in this process) and prints every contender. Timings are never asserted.

    pytest tests/test_bench_02.py
"""
from _bench import load_bench


def test_quick_run_prints_every_contender_with_ratios(capsys):
    bench = load_bench("bench_02")
    bench.main(["--quick"])
    output = capsys.readouterr().out
    rows = [line for line in output.splitlines() if line.startswith("| 2 |")]
    assert [row.split("|")[2].strip() for row in rows] == [
        "stage 0 (lesson)", "stage 1 (lesson)", "stage 2 (lesson)", "stage 3 (lesson)", "FSDP2 (fully_shard)"], output
    assert all(len(row.split("|")) == 9 for row in rows), output
    held = [int(row.split("|")[3].replace(",", "")) for row in rows]
    assert held[0] > held[1] > held[2] > held[3] > 0, output  # bytes are deterministic: each stage holds less
