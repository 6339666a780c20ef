"""lessons/scripts/08_elastic.py under two torchrun agents (`--nnodes=1:2`), one killed mid-training: the job goes on
at the smaller size from its last checkpoint, resharded, with the same global batch, and its losses are those of a
run at the new size from that checkpoint (exactly) and of a run that never shrank (within float32 rounding).

    pytest tests/test_elastic.py          # ~35 s on 2 busy cores: one elastic job (~25 s) and four small launches
"""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch.distributed as dist

import distlab
from distlab import elastic
from distlab.launching.process_tree import kill_tree
from distlab.notebook_source import cell_source, read_notebook

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "lessons" / "scripts" / "08_elastic.py"
KILL_AT, EVERY, STEPS = 10, 4, 16  # the script's defaults: a checkpoint every 4 steps of 16
REL_TOL = 1e-5  # float32: ~6e-8 per rounding; measured ~1e-7 between 1 rank x 4 micro-batches and 2 ranks x 2


def load_script():
    spec = importlib.util.spec_from_file_location("elastic_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # its main() does not run
    return module


script = load_script()


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """The lesson's job: 2 nodes x 1 rank, node "not hosting the store" killed at step 10."""
    folder = tmp_path_factory.mktemp("elastic")
    return elastic.run_shrinking_job(str(SCRIPT), str(folder / "job"), kill_at=KILL_AT, nproc_per_node=1,
                                     echo=False), folder


def test_a_killed_node_leaves_one_node_resuming_from_the_last_checkpoint_with_more_accumulation(job):
    run, _ = job
    first, second = run.attempts
    assert (first.world_size, first.resumed_step, first.accumulation, first.restart) == (2, 0, 2, 0), run.attempts
    assert sorted(first.losses) == list(range(KILL_AT)), first.losses  # then every rank paused at step 10
    # the newest complete checkpoint (step 8, not 10), written by 2 ranks, read by 1; the global batch kept:
    # 32 = 2 ranks x 8 x 2 before, 1 rank x 8 x 4 after
    assert (second.world_size, second.resumed_step, second.written_by, second.accumulation) == (1, 8, 2, 4)
    assert second.restart == 1  # a shrink is a failure to torchrun: it used one of --max-restarts
    assert sorted(second.losses) == list(range(8, STEPS))
    survivor = run.outputs[run.survivor]
    assert re.search(r"Connection (closed|reset) by peer", survivor), survivor[-3000:]  # how the survivors learned it
    assert survivor.count("finished at step 16 on 1 ranks") == 1
    assert run.seconds["killed"] < run.seconds["resumed"] < run.seconds["finished"]


def test_the_resumed_losses_are_a_run_from_that_checkpoint_and_close_to_a_run_that_never_shrank(job):
    run, folder = job
    first, second = run.attempts
    same = elastic.reference_losses(str(SCRIPT), str(folder / "same"), 1,
                                    checkpoint=str(folder / "job" / "ckpt" / "step-000008"))
    assert same == second.losses  # bit-identical: the same computation, from the same bits
    never = elastic.reference_losses(str(SCRIPT), str(folder / "never"), 2)
    assert {step: never[step] for step in first.losses} == first.losses  # before the kill: that very run
    worst = max(abs(second.losses[step] - never[step]) / never[step] for step in second.losses)
    assert worst <= REL_TOL, (worst, second.losses, never)


def test_a_kill_mid_save_leaves_no_checkpoint_that_looks_complete(tmp_path):
    """Rank 1 dies right after opening its shard of step 8's save: the job resumes from step 4, on any size."""
    folder = tmp_path / "ckpt"
    with pytest.raises(distlab.RankCrashed):
        distlab.launch(train_killed_in_save, 2, args=(str(folder), str(folder / "step-000008.partial" /
                                                                       "__1_0.distcp")), output="hide")
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith("step-")) == [
        "step-000004", "step-000008.partial"]
    assert script.latest_complete(str(folder)) == 4
    assert distlab.launch(train_from, 1, args=(str(folder),))[0] == 4


def train_killed_in_save(folder, shard):
    if dist.get_rank() == 1:
        distlab.kill_after_open(shard)
    script.train(folder, say=lambda *args, **kwargs: None)


def train_from(folder):
    return script.train(folder, say=lambda *args, **kwargs: None)["start"]


def test_the_commands_shown_are_the_ones_run():
    """The script's docstring and the lesson's section show the torchrun options distlab.elastic uses."""
    lesson = read_notebook(ROOT / "lessons" / "08_orchestration.ipynb")
    shown = [SCRIPT.read_text(), "\n".join(cell_source(cell) for cell in lesson["cells"])]
    options = [option for option in elastic.torchrun_args(29500, 1, elastic.RendezvousConf())
               if not option.startswith(("--rdzv-endpoint", "--rdzv-id", "--nproc-per-node"))]  # per cluster, job
    for text in shown:
        lines = text[text.index("=1 torchrun --nnodes"):].splitlines()[:4]
        command = " ".join(line.strip(" #\\") for line in lines).split()
        assert all(option in command for option in options), (options, command)


def test_a_world_size_that_cannot_keep_the_global_batch_is_refused_in_one_sentence(tmp_path):
    with pytest.raises(ValueError, match=r"cannot keep the global batch of 32 on 3 ranks"):
        script.accumulation_steps(32, 3, 8)
    assert [script.accumulation_steps(32, n, 8) for n in (1, 2, 4)] == [4, 2, 1]
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=1", str(SCRIPT),
               "--dir", str(tmp_path / "ckpt"), "--micro-batch", "5"]  # 32 examples: not 1 rank x 5 x anything
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=60)
    finally:
        kill_tree(proc)
    assert proc.returncode != 0 and "rank 0: cannot keep the global batch of 32 on 1 ranks" in output, output
    assert not (tmp_path / "ckpt").exists()  # refused before anything was written
