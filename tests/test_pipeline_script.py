"""lessons/scripts/05_train_pipeline.py under torchrun on 4 ranks: every step's loss and the final weights equal one
process's, for each schedule (the script asserts it on every rank and fails otherwise); the lesson runs the default
(1F1B), so these run the other two.

    pytest tests/test_pipeline_script.py
"""
import subprocess
import sys
from pathlib import Path

import pytest

import distlab

SCRIPTS = Path(__file__).resolve().parents[1] / "lessons" / "scripts"
SCRIPT = SCRIPTS / "05_train_pipeline.py"


@pytest.mark.parametrize("schedule", ["interleaved", "gpipe"])
def test_four_ranks_train_like_one_process(schedule):
    output = distlab.torchrun(str(SCRIPT), nproc_per_node=4, args=["--schedule", schedule], timeout=600, echo=False)
    assert f"{schedule}, 4 ranks, 8 microbatches" in output and "every step's loss equals one process's" in output
    for rank in range(4):
        assert f"rank {rank}: parts" in output and "equal one process's after" in output


def test_an_unknown_schedule_is_refused_before_any_rank_starts():
    result = subprocess.run([sys.executable, str(SCRIPT), "--schedule", "zigzag"], capture_output=True, text=True,
                            timeout=120, cwd=SCRIPTS)
    assert result.returncode == 2 and "invalid choice: 'zigzag'" in result.stderr
