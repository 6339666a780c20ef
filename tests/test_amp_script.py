"""lessons/scripts/06_train_amp.py under torchrun: autocast + GradScaler under DDP, the gradients all-reduced in fp16
(2 bytes per parameter) or, with --no-compress, in fp32 (4); the script's own checks (the same weights on every rank,
a falling loss) pass; and the command its docstring shows works as typed in a shell.

    pytest tests/test_amp_script.py
"""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import distlab
from distlab.models import ModelConfig, TinyTransformer

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "lessons" / "scripts"
SCRIPT = SCRIPTS / "06_train_amp.py"
PARAMETERS = TinyTransformer(ModelConfig(vocab_size=64, dim=32, n_layers=2, n_heads=4, max_seq_len=64)).num_parameters()


def test_fp16_compression_halves_the_bytes_and_training_works():
    output = distlab.torchrun(str(SCRIPT), nproc_per_node=2, timeout=300, echo=False)
    assert f"gradients all-reduced in fp16: {2 * PARAMETERS:,} bytes per step for {PARAMETERS:,} parameters" in output
    scales = [float(s) for s in re.findall(r"step +\d+: loss [\d.]+ +scale ([\d.e+]+)", output)]
    assert len(scales) == 12 and scales[0] == 2.0**16, output


def test_the_documented_command_works_as_typed_and_no_compress_all_reduces_fp32(tmp_path):
    typed = next(line.strip().split("  #")[0] for line in SCRIPT.read_text().splitlines()
                 if line.strip().startswith("torchrun --standalone --nproc-per-node=2"))
    command = typed.replace("torchrun", f"{shlex.quote(sys.executable)} -m torch.distributed.run", 1)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
           "TMPDIR": str(tmp_path)}  # torchrun leaves a log folder in the temporary directory
    result = subprocess.run(["bash", "-c", f"{command} --no-compress --steps 8"], cwd=SCRIPTS, capture_output=True,
                            text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert f"gradients all-reduced in fp32: {4 * PARAMETERS:,} bytes per step" in result.stdout, result.stdout
    assert "every rank ends with the same weights" in result.stdout
