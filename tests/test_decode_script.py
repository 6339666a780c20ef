"""lessons/scripts/07_decode_tp.py under torchrun (as lesson 7 runs it, and as a learner would on a node): 2 ranks
split the heads, 4 ranks also replicate the KV heads; the script asserts its tokens equal one process's.

    pytest tests/test_decode_script.py
"""
import re
from pathlib import Path

import pytest

import distlab

SCRIPT = Path(__file__).resolve().parents[1] / "lessons" / "scripts" / "07_decode_tp.py"


@pytest.mark.parametrize("ranks, kv_heads_per_rank", [(2, 2), (4, 1)])
def test_tensor_parallel_decode_equals_one_process(ranks, kv_heads_per_rank):
    output = distlab.torchrun(str(SCRIPT), nproc_per_node=ranks, args=["--new-tokens", "10"], timeout=180,
                              echo=False)
    assert f"TP={ranks} (gloo): 10 tokens for 3 sequences, identical to one process" in output, output
    held = re.findall(r"rank (\d+): query heads \[([\d, ]+)\], KV heads \[([\d, ]+)\]", output)
    assert sorted(int(rank) for rank, _, _ in held) == list(range(ranks)), output
    for rank, query, kv in held:
        assert len(query.split(",")) == 8 // ranks and len(kv.split(",")) == kv_heads_per_rank, output


def test_the_docstring_commands_name_this_script():
    text = SCRIPT.read_text()
    assert "torchrun --standalone --nproc-per-node=2 07_decode_tp.py" in text
