"""distlab.watch_overlap on real DDP ranks (gloo): gradients and buckets timestamped in order as spans of a Timeline,
the averaged gradients unchanged by the hook, the summary's arithmetic, and the chart drawn.

    pytest -q tests/test_overlap.py
"""
import matplotlib

matplotlib.use("Agg")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import distlab  # noqa: E402
from distlab.models import ModelConfig, TinyTransformer, random_batch  # noqa: E402

CONFIG = dict(vocab_size=64, dim=32, n_layers=2, n_heads=4, max_seq_len=64)


def _watched_steps(watched):
    from torch.nn.parallel import DistributedDataParallel

    config = ModelConfig(**CONFIG)
    model = DistributedDataParallel(TinyTransformer(config, seed=0), bucket_cap_mb=0.01)
    watch = distlab.watch_overlap(model) if watched else None
    events = []
    for step in range(3):  # DDP rebuilds its buckets in gradient-ready order when the 2nd iteration starts
        tokens, targets = random_batch(config, 2, 8, seed=10 * step + dist.get_rank())
        if watch:
            watch.start()
        loss = F.cross_entropy(model(tokens).flatten(0, 1), targets.flatten())
        if watch:
            watch.mark("forward done")
        loss.backward()
        if watch:
            events.append(watch.events())
    grads = [p.grad.clone() for p in model.parameters()]
    return events, grads


def test_every_gradient_and_bucket_is_timestamped_and_the_gradients_are_ddps():
    watched = distlab.launch(_watched_steps, 2, args=(True,), timeout=60)
    plain = distlab.launch(_watched_steps, 2, args=(False,), timeout=60)
    n_params = len(list(TinyTransformer(ModelConfig(**CONFIG)).parameters()))
    for rank, ((events, grads), (_, want)) in enumerate(zip(watched, plain)):
        for got, expected in zip(grads, want):
            torch.testing.assert_close(got, expected, rtol=0, atol=0)  # the hook averages exactly as DDP does
        last = events[-1]
        assert len(last["ready"]) == n_params and len(last["buckets"]) > 2, last["buckets"]
        assert sorted(n for b in last["buckets"] for n in b["params"]) == sorted(n for n, _ in last["ready"])
        ready_at = dict(last["ready"])
        forward_done = last["marks"][0][1]
        for bucket in last["buckets"]:
            assert forward_done <= bucket["start"] <= bucket["end"]
            assert bucket["start"] >= max(ready_at[n] for n in bucket["params"])  # handed over once all are ready
        first = min(last["buckets"], key=lambda b: b["index"])
        assert first["start"] < max(ready_at.values()), "bucket 0 starts before the backward pass ends"
        assert {s["lane"] for s in last["spans"]} == {"gradients ready", "all-reduce", "marks"}  # one Timeline's
        assert {s["rank"] for s in last["spans"]} == {rank} and last["buckets"] == sorted(  # spans, by lane
            (s for s in last["spans"] if s["lane"] == "all-reduce"), key=lambda s: s["start"])
    on_one_clock = [{b["index"]: (events[-1]["t0"] + b["start"], events[-1]["t0"] + b["end"])
                     for b in events[-1]["buckets"]} for events, _ in watched]
    for index in on_one_clock[0]:  # an all-reduce ends on every rank only after every rank handed its bucket over
        assert min(spans[index][1] for spans in on_one_clock) >= max(spans[index][0] for spans in on_one_clock)


def test_summary_takes_the_union_of_the_all_reduces():
    events = {"ready": [("a", 1.0), ("b", 4.0)], "marks": [],
              "buckets": [{"index": 0, "start": 2.0, "end": 5.0, "nbytes": 4, "params": ["a"]},
                          {"index": 1, "start": 3.0, "end": 6.0, "nbytes": 4, "params": ["b"]}]}
    summary = distlab.overlap_summary(events)
    assert summary == {"backward_end": 4.0, "comm_end": 6.0, "comm_busy": 4.0, "comm_hidden": 2.0, "exposed": 2.0}


def _one_step(t0=None):
    """A rank's events as `OverlapWatch.events()` returns them (spans only): gradient "a" ready at 1 ms, all-reduced
    from 1 to 2 ms; a mark at 0.5 ms."""
    spans = [{"name": "backward starts", "start": 0.0005, "end": 0.0005, "rank": 0, "lane": "marks"},
             {"name": "gradients ready", "start": 0.001, "end": 0.001, "rank": 0, "lane": "gradients ready",
              "param": "a"},
             {"name": "all-reduce", "start": 0.001, "end": 0.002, "rank": 0, "lane": "all-reduce", "index": 0,
              "label": "bucket 0", "nbytes": 4, "params": ["a"]}]
    return {"spans": spans} if t0 is None else {"t0": t0, "spans": spans}


def test_plot_draws_two_rows_per_rank():
    ax = distlab.plot_overlap([_one_step(), _one_step()])
    rows = sorted(zip(ax.get_yticks(), (label.get_text() for label in ax.get_yticklabels())))  # inverted y axis
    assert [label for _, label in rows] == [  # from the top
        "rank 0 gradients ready", "rank 0 all-reduce", "rank 1 gradients ready", "rank 1 all-reduce"]


def test_plot_puts_the_ranks_on_one_clock_and_names_the_marks_in_a_legend():
    ax = distlab.plot_overlap([_one_step(10.0), _one_step(10.003)])  # rank 1 started its step 3 ms later
    assert [round(bar.get_x(), 6) for bar in ax.patches] == [1.0, 4.0]  # ms, on rank 0's clock
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["backward starts"]  # once, not per rank
    assert not ax.texts  # no label drawn over the rows
