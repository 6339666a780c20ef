"""benchmarks/bench_*.py run (in their quick modes) and print their tables. Timings are never asserted: the machine is
shared.

    pytest tests/test_benchmarks.py
"""
import subprocess
import sys
from pathlib import Path

import pytest

from _bench import load_bench
from distlab.launching.process_tree import kill_tree

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPT = BENCHMARKS / "bench_01.py"


def run_script(args: list[str], timeout: float, script: Path = SCRIPT) -> str:
    """The script's output; it and everything it started are killed afterwards, even on a timeout."""
    proc = subprocess.Popen([sys.executable, str(script), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=timeout)
    finally:
        kill_tree(proc)
    assert proc.returncode == 0, output
    return output


def test_quick_run_prints_both_tables():
    output = run_script(["--quick"], timeout=120)
    assert "| distlab.launch, warm (repeated in one process) | 3 |" in output, output
    size_rows = [line for line in output.splitlines() if line.startswith(("| 4 KiB |", "| 64 KiB |"))]
    assert len(size_rows) == 2, output  # ring and gloo busbw and their ratio, for both sizes
    assert all(len(row.split("|")) == 8 for row in size_rows), output


@pytest.fixture(scope="module")
def bench():
    return load_bench("bench_01")


def test_fresh_process_contenders_return_every_rank(bench, tmp_path):
    """What --quick skips: distlab cold, mp.spawn and torchrun, once each at 2 ranks (tens of seconds)."""
    commands = bench.fresh_commands(bench.write_scripts(str(tmp_path)), world_size=2)
    seconds = bench.time_fresh_round(commands, world_size=2)  # raises unless ranks 0 and 1 both answered
    assert len(seconds) == 4 and all(len(times) == 1 and times[0] > 0 for times in seconds.values()), seconds


def test_bench_03_quick_run_prints_every_contender():
    """bench_03.py --quick: save and load with torch.save, the atomic save_checkpoint and DCP from 2 ranks."""
    output = run_script(["--quick"], timeout=120, script=BENCHMARKS / "bench_03.py")
    rows = [line for line in output.splitlines() if line.startswith("| ") and not line.startswith("| contender")]
    assert [row.split("|")[1].strip() for row in rows] == ["torch.save", "atomic (save_checkpoint)", "DCP, 2 ranks"]
    assert all(len(row.split("|")) == 8 for row in rows), output
    assert rows[0].split("|")[5].strip() == "1.00" and rows[0].split("|")[6].strip() == "1.00", output  # the baseline


def test_bench_launch_quick_run_reports_every_contender_and_mode():
    """bench_launch.py --quick: 2 launches of each contender, alone and two launchers at once, none failing."""
    output = run_script(["--quick"], timeout=300, script=BENCHMARKS / "bench_launch.py")
    rows = [line.split("|")[1:-1] for line in output.splitlines() if line.startswith("| ") and "contender" not in line]
    rows = [[cell.strip() for cell in row] for row in rows]
    assert [(r[0], r[1]) for r in rows] == [(c, m) for m in ("alone", "two at once") for c in
                                           ("distlab.launch", "plain torch, TCPStore", "plain torch, FileStore")]
    assert all(r[2] == "2" and r[3] == "0" for r in rows), output  # two launches each, no failure


def test_bench_comm_quick_run_reports_both_contenders():
    """bench_comm.py --quick: the ring with and without count_comm, side by side (what the block costs in time)."""
    output = run_script(["--quick"], timeout=120, script=BENCHMARKS / "bench_comm.py")
    rows = [line.split("|")[1:-1] for line in output.splitlines() if line.startswith("| ") and "contender" not in line]
    assert [row[0].strip() for row in rows] == ["plain ring", "inside count_comm"], output
    assert rows[0][3].strip() == "1.00", output  # the baseline


def test_bench_grading_quick_run_grades_honest_and_blank_students():
    """bench_grading.py --quick: grade.py over 2 honest and 2 blank copies of set 07 (it fails unless the honest ones
    score full marks and the blank ones zero), one row of seconds per student."""
    output = run_script(["--quick"], timeout=300, script=BENCHMARKS / "bench_grading.py")
    rows = [line.split("|")[1:-1] for line in output.splitlines() if line.startswith("| 07_inference |")]
    assert len(rows) == 1 and float(rows[0][1]) > 0 and float(rows[0][2]) > 0, output
