"""distlab.timeline: spans on one clock across real ranks (a skewed clock is corrected), busy and idle time, the chart.

    pytest tests/test_timeline.py
"""
import time

import matplotlib

matplotlib.use("Agg")

import pytest
import torch
import torch.distributed as dist

import distlab
from distlab.timeline import busy_seconds


def relay(skew):
    """Rank r's clock runs `skew * r` seconds ahead; a token passes 0 -> 1 -> 2, each rank holding it 20 ms."""
    rank = dist.get_rank()
    timeline = distlab.Timeline(clock=lambda: time.perf_counter() + skew * rank)
    token = torch.zeros(1)
    if rank > 0:
        dist.recv(token, src=rank - 1)
    with timeline.span("hold", token=rank, phase="relay"):
        time.sleep(0.02)
    if rank < dist.get_world_size() - 1:
        dist.send(token, dst=rank + 1)
    return timeline.spans, timeline.offset, timeline.uncertainty


@pytest.mark.parametrize("skew", [0.0, 5.0])
def test_skewed_clocks_are_aligned_to_rank_0(skew):
    results = distlab.launch(relay, 3, args=(skew,), timeout=60)
    for rank, (spans, offset, uncertainty) in enumerate(results):
        assert abs(offset + skew * rank) <= uncertainty + 1e-3, (rank, offset, uncertainty)
        (span,) = spans
        assert span["name"] == "hold" and span["rank"] == rank and span["token"] == rank and span["phase"] == "relay"
        assert span["end"] - span["start"] >= 0.02
    error = max(uncertainty for _, _, uncertainty in results) + 1e-3
    for (before, *_), (after, *_) in zip(results, results[1:]):  # causality holds on the aligned clock
        assert after[0]["start"] >= before[0]["end"] - error


def test_a_single_process_timeline_needs_no_process_group():
    timeline = distlab.Timeline()
    with timeline.span("a", microbatch=1):
        time.sleep(0.01)
    timeline.record("b", timeline.now(), timeline.now() + 0.5, lane="comm")
    assert [s["name"] for s in timeline.spans] == ["a", "b"] and timeline.offset == 0.0
    assert timeline.spans[0]["end"] - timeline.spans[0]["start"] >= 0.01
    assert timeline.spans[1]["rank"] == 0 and timeline.spans[1]["lane"] == "comm"


def test_a_span_is_recorded_when_its_block_raises():
    timeline = distlab.Timeline()
    with pytest.raises(ZeroDivisionError):
        with timeline.span("boom"):
            1 / 0
    assert [s["name"] for s in timeline.spans] == ["boom"]


def spans(*triples):
    return [{"name": name, "start": start, "end": end, "rank": rank} for rank, name, start, end in triples]


def test_busy_seconds_counts_overlaps_once():
    assert busy_seconds(spans((0, "F", 0, 2), (0, "B", 1, 3), (0, "F", 5, 6))) == pytest.approx(4.0)
    assert busy_seconds([]) == 0.0


def test_summary_from_per_rank_lists_or_a_flat_list():
    flat = spans((0, "F", 0, 1), (0, "B", 3, 5), (1, "F", 1, 2), (1, "wait", 2, 3), (1, "B", 3, 5))
    per_rank = [[s for s in flat if s["rank"] == r] for r in (0, 1)]
    for given in (flat, per_rank):
        summary = distlab.timeline_summary(given)
        assert summary == {"makespan": 5.0, "busy": [3.0, 4.0], "idle": [2.0, 1.0]}
    assert distlab.timeline_summary(flat, names=["F", "B"])["busy"] == [3.0, 3.0]


def test_plot_draws_one_row_per_rank_and_lane():
    flat = spans((0, "F", 0, 1), (1, "F", 1, 2)) + [{"name": "all_reduce", "start": 0.5, "end": 1.5, "rank": 1,
                                                     "lane": "comm", "microbatch": 3}]
    ax = distlab.plot_timeline(flat, unit="", row_name="stage", title="t")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["stage 0", "stage 1", "stage 1 comm"]
    assert len(ax.patches) == 3 and ax.get_title() == "t"
    assert "3" in [t.get_text() for t in ax.texts]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["F", "all_reduce"]  # the known names first
    assert distlab.plot_timeline(flat, color=lambda s: "black").get_legend() is None


def test_plot_orders_lanes_draws_instants_as_ticks_stacks_bars_in_turn_and_names_marks():
    flat = [{"name": "all-reduce", "start": 1.0, "end": 3.0, "rank": 0, "lane": "comm"},
            {"name": "all-reduce", "start": 2.0, "end": 4.0, "rank": 0, "lane": "comm"},  # in flight: track 1
            {"name": "all-reduce", "start": 3.0, "end": 5.0, "rank": 0, "lane": "comm"},  # track 0 again: in turn
            {"name": "ready", "start": 0.5, "end": 0.5, "rank": 0, "lane": "grads"}]
    marks = [{"name": "backward", "start": 0.25, "end": 0.25, "rank": 0}]
    ax = distlab.plot_timeline(flat, unit="", lanes=["grads", "comm"], stack=2, marks=marks, start_at_zero=False)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["rank 0 grads", "rank 0 comm"]  # not alphabetical
    bars = [(bar.get_x(), round(bar.get_y(), 6), round(bar.get_height(), 6)) for bar in ax.patches]
    assert bars == [(1.0, 0.6, 0.4), (2.0, 1.0, 0.4), (3.0, 0.6, 0.4)]  # row 1, two tracks of half its height
    (ticks,) = ax.collections  # the instant: a tick at 0.5 across row 0
    assert ticks.get_segments()[0].tolist() == [[0.5, -0.4], [0.5, 0.4]]
    (line,) = ax.lines
    assert list(line.get_xdata()) == [0.25, 0.25] and list(line.get_ydata()) == [-0.45, 1.45]  # both rows of rank 0
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["all-reduce", "ready", "backward"]
    unstacked = distlab.plot_timeline(flat, unit="")
    assert [t.get_text() for t in unstacked.get_yticklabels()] == ["rank 0 comm", "rank 0 grads"]
    assert {round(bar.get_height(), 6) for bar in unstacked.patches} == {0.8}


def test_an_unaligned_timeline_exchanges_nothing_and_counts_from_its_own_creation():
    results = distlab.launch(_unaligned, 2, timeout=60)
    for rank, (origin, offset, spans, calls) in enumerate(results):
        assert offset == 0.0 and calls == {} and spans[0]["rank"] == rank
        assert 0 <= spans[0]["start"] <= spans[0]["end"] < 1.0  # seconds since this rank's own creation


def _unaligned():
    with distlab.count_comm() as comm:
        timeline = distlab.Timeline(align=False)
        with timeline.span("work"):
            pass
    return timeline.origin, timeline.offset, timeline.spans, dict(comm.calls)
