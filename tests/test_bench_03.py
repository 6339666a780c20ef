"""benchmarks/bench_03.py runs and prints its table (save and load: torch.save, atomic, DCP from 2 ranks). Timings
are never asserted: the machine is shared.

    pytest tests/test_bench_03.py
"""
import os
import signal
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_03.py"


def test_quick_run_prints_every_contender():
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "--quick"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=120)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the script and every rank it started
        except ProcessLookupError:
            pass
        proc.wait()
    assert proc.returncode == 0, output
    rows = [line for line in output.splitlines() if line.startswith("| ") and not line.startswith("| contender")]
    assert [row.split("|")[1].strip() for row in rows] == ["torch.save", "atomic (save_checkpoint)", "DCP, 2 ranks"]
    assert all(len(row.split("|")) == 8 for row in rows), output
    assert rows[0].split("|")[5].strip() == "1.00" and rows[0].split("|")[6].strip() == "1.00", output  # the baseline
