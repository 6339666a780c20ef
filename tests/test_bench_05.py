"""benchmarks/bench_05.py runs (quick mode, in this process) and prints every contender. Timings are never asserted.

    pytest tests/test_bench_05.py
"""
import re

from _bench import load_bench


def test_the_lessons_gpipe_schedule_starts_with_the_forwards_of_the_first_microbatches():
    lesson = load_bench("bench_05").load_lesson()
    assert lesson["gpipe"](4, 8)[0][:2] == [("F", 0, 0), ("F", 1, 0)]


def test_quick_run_prints_every_contender_with_the_simulated_makespans(capsys):
    bench = load_bench("bench_05")
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
