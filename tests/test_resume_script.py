"""lessons/scripts/03_train_resume.py: killed and resumed, it ends bit-identical to a run that never failed, at 2, 3
and 4 ranks (plain DDP does not, from 3 ranks on); the commands its docstring shows work as typed in a shell.

    pytest tests/test_resume_script.py
"""
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.nn as nn

import distlab
from distlab.launching.process_tree import kill_processes_in, kill_tree

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "lessons" / "scripts" / "03_train_resume.py"


def load_script():
    spec = importlib.util.spec_from_file_location("train_resume", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the script as a module: its main() does not run
    return module


train_resume = load_script()


def train_and_digest(folder, ddp, fail=None):
    result = train_resume.train(folder, fail=fail, ddp=ddp)
    return result["start"], train_resume.digest(result["weights"])


def never_failing_and_resumed(tmp_path, world_size, ddp):
    """The docstring's scenario: rank 1 killed at step 7, then rank 0 at step 13 (each start resumes from the last
    complete checkpoint), then a start that finishes; and the same training never failing. -> (resumed, clean)."""
    clean = distlab.launch(train_and_digest, world_size, args=(str(tmp_path / "clean"), ddp), timeout=120)[0]
    folder = str(tmp_path / "ckpt")
    for rank, step in ((1, 7), (0, 13)):
        with pytest.raises(distlab.RankCrashed) as crash:
            distlab.launch(train_and_digest, world_size, args=(folder, ddp), timeout=120, collective_timeout=20,
                           kwargs={"fail": distlab.FailAt(rank, step)}, output="hide")
        assert crash.value.rank == rank and crash.value.signal == signal.SIGKILL
    resumed = distlab.launch(train_and_digest, world_size, args=(folder, ddp), timeout=120)[0]
    assert resumed[0] == 12  # the last start resumed from the checkpoint of step 12
    return resumed[1], clean[1]


@pytest.mark.parametrize("world_size", [2, 3, 4])
def test_killed_and_resumed_is_bit_identical_at_any_world_size(tmp_path, world_size):
    resumed, clean = never_failing_and_resumed(tmp_path, world_size, "fixed")
    assert resumed == clean, f"{world_size} ranks: resumed {resumed}, never failing {clean}"


@pytest.mark.parametrize("world_size", [3, 4])
def test_plain_ddp_is_not_bit_identical_from_3_ranks_on(tmp_path, world_size):
    """The control: with DDP's own bucket layout (one bucket in parameter order for its first iteration, rebuilt
    after it), the first step after a restart sums gradients in another order. Deterministic: the same bits on
    every run of this test."""
    resumed, clean = never_failing_and_resumed(tmp_path, world_size, "default")
    assert resumed != clean


def test_plain_ddp_is_bit_identical_at_2_ranks(tmp_path):
    """At 2 ranks every gradient element is one addition, a + b = b + a: the layout cannot matter."""
    resumed, clean = never_failing_and_resumed(tmp_path, 2, "default")
    assert resumed == clean


def gradients_under(wrap, steps=3):
    """Each step's averaged gradients, flattened, of a model DDP-wrapped by `wrap`; rank r has its own inputs."""
    torch.manual_seed(0)
    model = wrap(nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1)))
    generator = torch.Generator().manual_seed(100 + dist.get_rank())
    grads = []
    for _ in range(steps):
        model.zero_grad()
        model(torch.randn(8, 16, generator=generator)).pow(2).mean().backward()
        grads.append(torch.cat([p.grad.flatten() for p in model.parameters()]))
    return grads


def per_parameter_reference(steps=3):
    """The same gradients, each parameter's all-reduced on its own by hand, then divided by the world size."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1))
    generator = torch.Generator().manual_seed(100 + dist.get_rank())
    grads = []
    for _ in range(steps):
        model.zero_grad()
        model(torch.randn(8, 16, generator=generator)).pow(2).mean().backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= dist.get_world_size()
        grads.append(torch.cat([p.grad.flatten() for p in model.parameters()]))
    return grads


def test_fixed_layout_ddp_equals_a_per_parameter_all_reduce_at_every_step():
    """distlab.fixed_layout_ddp's gradients: bitwise those of one all_reduce per parameter, at DDP's first iteration
    (one bucket, parameter order) as after its bucket rebuild (gradient-ready order); and the same on every rank."""
    fixed = distlab.launch(gradients_under, 4, args=(distlab.fixed_layout_ddp,), timeout=60)
    by_hand = distlab.launch(per_parameter_reference, 4, timeout=60)
    for rank in range(4):
        for step in range(3):
            assert torch.equal(fixed[rank][step], by_hand[0][step]), f"rank {rank}, step {step}"


def documented_commands() -> list[str]:
    """The shell commands in the script's docstring (its indented lines), as typed: a line ending in a backslash
    continues on the next one."""
    commands, current = [], []
    for line in train_resume.__doc__.splitlines():
        if not line.startswith("    "):
            continue
        current.append(line.strip())
        if not line.endswith("\\"):
            commands.append("\n".join(current))
            current = []
    return commands


def run_in_a_shell(command: str, cwd: Path, timeout: float) -> str:
    """Run `command` with bash in `cwd` as a learner's terminal would (no TORCH_* or DISTLAB_* variables set
    beforehand; the course's Python first on PATH); everything it started is killed afterwards, even on a timeout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH", "DISTLAB", "MASTER_", "RANK"))}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    env["TMPDIR"] = str(cwd)  # torchrun leaves a torchelastic_* log folder in the temporary folder
    proc = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=timeout)
    finally:
        kill_everything_in(cwd, proc)
    assert proc.returncode == 0, f"$ {command}\n{output}"
    return output


def kill_everything_in(folder: Path, proc: subprocess.Popen) -> None:
    """SIGKILL the shell's process group, then every process still running in `folder`: torchrun starts each rank in
    a session of its own, and a rank stuck connecting to a peer can outlive a killed (or failed) torchrun."""
    kill_tree(proc)
    kill_processes_in(folder)


@pytest.mark.timeout(900)
def test_the_docstring_commands_work_as_typed(tmp_path):
    """The commands a learner copies from the docstring: the job that fails twice and is restarted by torchrun ends
    with the digest of the job that never fails. Without TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 in the command, a
    restarted rank may fail to connect (pytorch/pytorch#135712), and the script says so."""
    failing, clean = documented_commands()
    assert "--max-restarts=2" in failing and "TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1" in failing
    shutil.copy(SCRIPT, tmp_path / SCRIPT.name)  # the commands name the script in the current folder
    restarted = run_in_a_shell(failing, tmp_path, timeout=420)
    assert "injected failure: rank 1 at step 7 (SIGKILL)" in restarted, restarted
    assert "injected failure: rank 0 at step 13 (SIGKILL)" in restarted, restarted
    assert "attempt 2: started at step 12" in restarted, restarted  # no restart was lost to a failed connection
    assert "restarted without TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1" not in restarted, restarted
    never_failed = run_in_a_shell(clean, tmp_path, timeout=300)
    digests = [re.findall(r"weights digest (\w+)", out) for out in (restarted, never_failed)]
    assert len(digests[0]) == len(digests[1]) == 1 and digests[0] == digests[1], (restarted, never_failed)


def readme_command() -> str:
    """The torchrun command the README shows for a script run from lessons/scripts/ (an inline code span that wraps
    over lines, joined as a reader copies it)."""
    readme = (ROOT / "README.md").read_text()
    found = re.findall(r"`(TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 [^`]*03_train_resume\.py[^`]*)`", readme)
    assert len(found) == 1, found
    return " ".join(found[0].split())


@pytest.mark.timeout(900)
def test_the_readme_command_works_as_typed_on_4_ranks(tmp_path):
    """The README's command: 4 ranks, rank 1 killed at step 7 and restarted by torchrun; it ends with the digest of a
    4-rank run that never fails (computed in-process here: torchrun's clean run prints the same, as the docstring
    test above shows at 2 ranks)."""
    command = readme_command()
    assert "--nproc-per-node=4" in command and 'DISTLAB_FAIL_AT="1:7@0"' in command, command
    shutil.copy(SCRIPT, tmp_path / SCRIPT.name)
    restarted = run_in_a_shell(command, tmp_path, timeout=600)
    assert "injected failure: rank 1 at step 7 (SIGKILL)" in restarted, restarted
    assert "attempt 1: started at step 4" in restarted, restarted
    clean = distlab.launch(train_and_digest, 4, args=(str(tmp_path / "clean"), "fixed"), timeout=120)[0][1]
    assert re.findall(r"weights digest (\w+)", restarted) == [clean], restarted
