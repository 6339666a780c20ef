"""distlab.orchestration and the straggler injection: ranks started by hand on a TCPStore, a preempted training
process (real SIGTERM, real SIGKILL), a flight recorder of collectives; real processes, no mocks.

    pytest tests/test_orchestration.py
"""
import multiprocessing.forkserver
import time

import psutil
import pytest
import torch
import torch.distributed as dist

import distlab
from distlab import orchestration
from distlab.orchestration import REQUEUE_EXIT, RendezvousTimeout, diagnose_hang, preempt, rendezvous_by_hand
from tests._timing import SLACK


def forkserver_children() -> list:
    """The processes distlab's forkserver has forked that still exist (the workers of orchestration, the ranks)."""
    pid = multiprocessing.forkserver._forkserver._forkserver_pid
    return psutil.Process(pid).children() if pid else []


def test_ranks_started_by_hand_form_a_group_on_our_store_with_torchrun_s_variables():
    run = rendezvous_by_hand(3, timeout=10 * SLACK)
    assert [r["rank"] for r in run.reports] == [0, 1, 2]
    assert all(r["sum_of_ranks"] == 0 + 1 + 2 and r["world_size"] == 3 for r in run.reports)
    assert run.reports[2]["env"] == {"RANK": "2", "LOCAL_RANK": "2", "WORLD_SIZE": "3", "LOCAL_WORLD_SIZE": "3",
                                     "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(run.port)}
    assert {f"distlab/arrived/{r}" for r in range(3)} <= set(run.keys)
    assert len(run.keys) > 3, "init_process_group wrote its own keys (each rank's gloo address) to the same store"
    assert run.port > 0 and not forkserver_children()


def test_a_rank_that_never_arrives_is_named_and_every_process_is_gone_by_the_deadline():
    rendezvous_by_hand(2, timeout=10 * SLACK)  # the forkserver warm: the deadline below measures the wait alone
    started = time.monotonic()
    with pytest.raises(RendezvousTimeout) as info:
        rendezvous_by_hand(4, absent={1, 3}, timeout=2.0)
    assert time.monotonic() - started < 2.0 + SLACK
    assert info.value.missing == [1, 3] and info.value.arrived == [0, 2]
    assert str(info.value).startswith("rendezvous: rank(s) 1, 3 of 4 did not arrive within 2 s")
    assert not forkserver_children()


def test_a_preempted_process_finishes_its_step_saves_within_the_grace_period_and_asks_to_be_requeued(tmp_path):
    grace_s = 5.0 * SLACK
    first = preempt(tmp_path, grace_s=grace_s, sigterm_after_step=5, every=4)
    assert not first.killed and first.exit_code == REQUEUE_EXIT and first.seconds_to_exit < grace_s
    assert first.steps_done >= 6 and first.checkpoint_step == first.steps_done, "no finished step is lost"
    assert first.save_seconds is not None
    again = preempt(tmp_path, grace_s=grace_s, sigterm_after_step=first.steps_done + 2, every=4)
    assert again.events[0] == {"event": "started", "step": first.steps_done}, "requeued, it resumes where it stopped"
    assert not forkserver_children()


def test_a_kill_before_the_handler_s_save_ends_loses_only_the_steps_since_the_last_checkpoint(tmp_path):
    every = 4
    run = preempt(tmp_path, grace_s=0.3, sigterm_after_step=9, every=every, save_s=30.0)
    assert run.killed and run.exit_code == -9 and run.save_seconds is None
    assert run.steps_done - every <= run.checkpoint_step < run.steps_done and run.checkpoint_step % every == 0
    assert orchestration.load_checkpoint(tmp_path)["step"] == run.checkpoint_step, "the periodic one, intact"


@pytest.mark.parametrize("case", ["finishes first", "unreadable checkpoint"])
def test_preempt_says_when_the_training_process_never_reached_the_step_to_signal(tmp_path, case):
    if case == "unreadable checkpoint":
        (tmp_path / "checkpoint.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(distlab.LaunchError, match="ended before step 50" + (
            ": .*'error'" if case == "unreadable checkpoint" else ": .*'finished'")):
        preempt(tmp_path, grace_s=1.0, sigterm_after_step=50, steps=5)
    assert not forkserver_children()


def test_the_hang_diagnosis_names_the_rank_behind_from_each_rank_s_last_collective():
    started = {"op": "all_reduce", "state": "started"}
    last = {0: {"seq": 7, **started}, 1: {"seq": 6, "op": "all_reduce", "state": "completed"}, 2: {"seq": 7, **started}}
    assert diagnose_hang(last, 3) == ("rank 1 never started collective #7 (its last: all_reduce #6, completed); "
                                      "rank(s) 0, 2 wait in all_reduce #7")
    assert diagnose_hang({0: {"seq": 1, **started}}, 2).startswith("rank 1 never started collective #1 (it recorded")
    same = {r: {"seq": 3, "op": "all_reduce", "state": "completed"} for r in range(2)}
    assert diagnose_hang(same, 2) == "every rank is at the same collective"


def _hang_at(folder, fail):
    recorder = orchestration.FlightRecorder(folder)
    t = torch.ones(2)
    for step in range(6):
        fail(step)
        recorder.all_reduce(t)


def test_a_frozen_rank_is_found_by_the_flight_recorder_after_the_gloo_timeout(tmp_path):
    with pytest.raises(distlab.RankFailed):
        distlab.launch(_hang_at, 3, args=(str(tmp_path), distlab.FailAt(rank=2, step=3, how="stop")),
                       timeout=30 * SLACK, collective_timeout=1.5, backend="gloo", output="hide")
    last = orchestration.last_collectives(tmp_path)
    assert last[2] == {"seq": 3, "op": "all_reduce", "state": "completed"}
    assert diagnose_hang(last, 3).startswith("rank 2 never started collective #4")


def _steps(slow, steps=4, seconds=0.05):
    timeline = distlab.Timeline()
    t = torch.ones(8)
    for step in range(steps):
        with timeline.span("compute", step=step):
            slow.work(seconds)
        with timeline.span("all_reduce", step=step):
            dist.all_reduce(t)
    return timeline.spans, timeline.uncertainty


def test_a_slow_rank_sets_every_rank_s_pace_in_synchronous_training():
    slow = distlab.SlowRank(rank=1, factor=3.0)
    assert slow.work(0.01, rank=1) == pytest.approx(0.03) and slow.work(0.01, rank=0) == 0.01
    results = distlab.launch(_steps, 3, args=(slow,), timeout=30 * SLACK, backend="gloo")
    uncertainty = sum(u for _, u in results)
    spans = [s for rank_spans, _ in results for s in rank_spans]
    for step in range(4):
        slow_done = next(s["end"] for s in spans if s["rank"] == 1 and s["step"] == step and s["name"] == "compute")
        for s in spans:
            if s["step"] == step and s["name"] == "all_reduce":
                assert s["end"] >= slow_done - uncertainty, "no rank leaves the all-reduce before the straggler came"


@pytest.mark.parametrize("bad", [dict(rank=-1), dict(rank=0, factor=0.5), dict(rank=True)])
def test_slow_rank_refuses_what_is_not_a_straggler(bad):
    with pytest.raises(ValueError):
        distlab.SlowRank(**bad)
