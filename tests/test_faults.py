"""distlab.faults: a rank killed at a chosen step, a save killed halfway, failures read from the environment; with
real launches (gloo ranks, torchrun), no mocks.

    pytest tests/test_faults.py
"""
import os
import signal
import textwrap

import pytest
import torch
import torch.distributed as dist

import distlab
from distlab.faults import InjectedFailure, parse_failures, restart_count


def train_steps(steps, fail):
    """A loop that communicates every step, as data-parallel training does."""
    done = []
    for step in range(steps):
        fail(step)
        t = torch.ones(1)
        dist.all_reduce(t)
        done.append(step)
    return done


def test_fail_at_kills_the_chosen_rank_at_the_chosen_step(capfd):
    with pytest.raises(distlab.RankCrashed) as info:
        distlab.launch(train_steps, 2, args=(6, distlab.FailAt(rank=1, step=3)), timeout=20, collective_timeout=5,
                       backend="gloo")
    assert info.value.rank == 1 and info.value.signal == signal.SIGKILL
    assert "rank 1 was killed by signal SIGKILL" in str(info.value)
    assert "[rank 1] injected failure: rank 1 at step 3 (SIGKILL)" in capfd.readouterr().out


def test_no_failure_on_other_ranks_or_steps():
    results = distlab.launch(train_steps, 2, args=(4, distlab.FailAt(rank=1, step=9)), timeout=20,
                             collective_timeout=5, backend="gloo")
    assert results == [[0, 1, 2, 3]] * 2


def test_how_raise_raises_on_that_rank():
    with pytest.raises(distlab.RankFailed) as info:
        distlab.launch(train_steps, 2, args=(6, distlab.FailAt(0, 2, how="raise")), timeout=20, collective_timeout=5,
                       backend="gloo")
    assert info.value.rank == 0 and isinstance(info.value.exception, InjectedFailure)
    assert "injected failure: rank 0 at step 2" in info.value.summary


def test_attempt_fails_only_on_that_restart(monkeypatch):
    fail = distlab.FailAt(0, 5, how="raise", attempt=0)
    monkeypatch.delenv("TORCHELASTIC_RESTART_COUNT", raising=False)
    assert restart_count() == 0
    with pytest.raises(InjectedFailure):
        fail(5, rank=0)
    monkeypatch.setenv("TORCHELASTIC_RESTART_COUNT", "1")
    fail(5, rank=0)  # the restarted job gets past step 5


def test_the_environment_spec_is_parsed_and_bad_specs_are_named(monkeypatch):
    plan = parse_failures("1:7@0, 0:13:raise@1,2:4")
    assert plan.failures == (distlab.FailAt(1, 7, "kill", 0), distlab.FailAt(0, 13, "raise", 1),
                             distlab.FailAt(2, 4))
    assert parse_failures("2:9:stop@0").failures == (distlab.FailAt(2, 9, "stop", 0),)  # SIGSTOP: a hang
    monkeypatch.setenv("DISTLAB_FAIL_AT", "")
    assert len(distlab.faults_from_env()) == 0
    for bad in ("1", "a:2", "1:2:explode", "1:-2"):
        with pytest.raises(ValueError, match="DISTLAB_FAIL_AT"):
            parse_failures(bad)
    for kwargs in ({"rank": -1, "step": 0}, {"rank": 0, "step": 1.5}, {"rank": 0, "step": 0, "how": "segfault"}):
        with pytest.raises(ValueError, match="FailAt"):
            distlab.FailAt(**kwargs)


def save_and_die(path):
    torch.save({"weights": torch.arange(1000.0), "killer": distlab.KillWhenPickled(), "after": torch.zeros(10)}, path)


def test_kill_when_pickled_kills_a_save_halfway(tmp_path):
    path = str(tmp_path / "checkpoint.pt")
    torch.save({"weights": torch.ones(3)}, path)
    with pytest.raises(distlab.RankCrashed, match="SIGKILL"):
        distlab.launch(save_and_die, 1, args=(path,), timeout=20, backend="gloo")
    with pytest.raises(Exception):  # torch.save opened (truncated) the file before writing: the old checkpoint is gone
        torch.load(path, weights_only=True)


def overwrite_in_place(path):
    distlab.kill_after_open(path)
    with open(path + ".tmp", "wb") as f:  # another file: not the one watched
        f.write(b"new")
    os.replace(path + ".tmp", path + ".other")
    with open(path, "wb") as f:
        f.write(b"never written")
    return "survived"


def test_kill_after_open_dies_after_truncating(tmp_path):
    path = str(tmp_path / "checkpoint.bin")
    with open(path, "wb") as f:
        f.write(b"old contents")
    with pytest.raises(distlab.RankCrashed, match="SIGKILL"):
        distlab.launch(overwrite_in_place, 1, args=(path,), timeout=20, backend="gloo")
    assert os.path.getsize(path) == 0  # what a crash right after open(path, "wb") leaves
    assert (tmp_path / "checkpoint.bin.other").read_bytes() == b"new"


SCRIPT = """
    import os, torch, torch.distributed as dist, distlab
    dist.init_process_group("gloo")
    fail = distlab.faults_from_env()
    attempt = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
    for step in range(4):
        fail(step)
        t = torch.ones(1); dist.all_reduce(t)
    print(f"rank {dist.get_rank()} finished on attempt {attempt}", flush=True)
    dist.destroy_process_group()
"""


def test_torchrun_restarts_past_a_failure_read_from_the_environment(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(SCRIPT))
    output = distlab.torchrun(str(script), nproc_per_node=2, torchrun_args=["--max-restarts=1"], timeout=120,
                              env={"DISTLAB_FAIL_AT": "1:2@0"}, echo=False)
    # (this also checks that distlab.torchrun sets TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1: without it a restarted rank
    # may read its peer's address from the previous attempt and fail or hang, pytorch/pytorch#135712)
    assert "injected failure: rank 1 at step 2 (SIGKILL)" in output
    assert "rank 0 finished on attempt 1" in output and "rank 1 finished on attempt 1" in output
    assert "finished on attempt 0" not in output
