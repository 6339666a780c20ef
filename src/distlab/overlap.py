"""Watch DDP overlap communication with the backward pass: when each gradient became ready, when each bucket's
all-reduce started and ended, on every rank, as spans of a `distlab.Timeline`; and draw them with `plot_timeline`.

    model = DistributedDataParallel(module, bucket_cap_mb=0.25)
    watch = distlab.watch_overlap(model)      # a hook on every parameter + a timed all-reduce as DDP's comm hook
    watch.start()                             # t = 0
    loss = loss_fn(model(x)); watch.mark("forward done")
    loss.backward()
    watch.events()                            # plain data: {"t0": ..., "spans": [...], "buckets": [...], ...}

    distlab.plot_overlap(distlab.launch(step_and_return_events, 4))   # one Gantt row of gradients, one of all-reduces

DDP copies gradients into buckets and all-reduces a bucket as soon as its last gradient is ready, while autograd goes
on computing the others (Li et al. 2020, *PyTorch Distributed: Experiences on Accelerating Data Parallel Training*,
§3.2.3). The comm hook here does what DDP's default one does (divide by the world size, all-reduce asynchronously) and
timestamps it: `start` when DDP hands the bucket over, `end` when the all-reduce's future completes (on the backend's
own thread, while the backward pass may still be running). Each `start()` begins a `Timeline(align=False)`: times are
seconds since `start()` on `time.perf_counter`, and `events()["t0"]` is that `start()` on `perf_counter`'s own clock,
which on Linux (CLOCK_MONOTONIC) is one clock for every process of the machine: adding it puts the ranks' spans on one
time axis, exactly (no estimated offset, and nothing exchanged between ranks in the middle of a step). The hook costs
a Python call per bucket and per gradient: negligible next to the all-reduces.
"""
from __future__ import annotations

import torch.distributed as dist

from .timeline import Timeline, busy_seconds, plot_timeline

__all__ = ["OverlapWatch", "watch_overlap", "overlap_summary", "plot_overlap"]

READY, ALL_REDUCE, MARKS = "gradients ready", "all-reduce", "marks"  # the lanes of a rank


class OverlapWatch:
    """Timestamps of one DDP model's backward passes (see the module's docstring), in `self.timeline`. Create it
    before the first forward pass (DDP accepts a comm hook only then); `start()` before each step you want to watch."""

    def __init__(self, ddp_model):
        self._names = {id(p): name for name, p in ddp_model.module.named_parameters()}
        self.timeline = Timeline(align=False)
        for p in ddp_model.module.parameters():
            if p.requires_grad:
                p.register_post_accumulate_grad_hook(self._on_ready)
        ddp_model.register_comm_hook(self, _timed_all_reduce)

    def start(self) -> None:
        """Forget what was recorded; times count from now."""
        self.timeline = Timeline(align=False)

    def now(self) -> float:
        return self.timeline.now()

    def mark(self, label: str) -> None:
        """A moment worth drawing (e.g. "forward done"), at the current time."""
        now = self.now()
        self.timeline.record(label, now, now, lane=MARKS)

    def record(self, label: str, start: float, nbytes: int) -> None:
        """An all-reduce you ran yourself (e.g. one flat all-reduce after `no_sync`), from `start` until now."""
        index = sum(s["lane"] == ALL_REDUCE for s in self.timeline.spans)
        self.timeline.record(ALL_REDUCE, start, self.now(), lane=ALL_REDUCE, index=index, label=label, nbytes=nbytes,
                             params=[])

    def _on_ready(self, param) -> None:
        now = self.now()
        self.timeline.record(READY, now, now, lane=READY, param=self._names[id(param)])

    def events(self) -> dict:
        """What was recorded since `start()`, as plain data (it can come back from a rank): "t0", `start()`'s
        `time.perf_counter()`; "spans", the timeline's; and the same spans by lane: "ready", (parameter, time) in the
        order the gradients became ready; "marks", (label, time); "buckets", the all-reduce spans ({"index",
        "label", "start", "end", "nbytes", "params", ...}) by start."""
        spans = list(self.timeline.spans)
        return {"t0": self.timeline.origin, "spans": spans,
                "ready": [(s["param"], s["start"]) for s in spans if s["lane"] == READY],
                "marks": [(s["name"], s["start"]) for s in spans if s["lane"] == MARKS],
                "buckets": sorted((s for s in spans if s["lane"] == ALL_REDUCE), key=lambda s: s["start"])}


def watch_overlap(ddp_model) -> OverlapWatch:
    """`OverlapWatch(ddp_model)`."""
    return OverlapWatch(ddp_model)


def _timed_all_reduce(watch: OverlapWatch, bucket):
    """DDP comm hook: the average of the bucket over the ranks (as DDP's default hook), timestamped into `watch`."""
    timeline, start = watch.timeline, watch.now()
    buffer = bucket.buffer().div_(dist.get_world_size())
    names = [watch._names[id(p)] for p in bucket.parameters()]

    def done(future):
        timeline.record(ALL_REDUCE, start, timeline.now(), lane=ALL_REDUCE, index=bucket.index(),
                        label=f"bucket {bucket.index()}", nbytes=buffer.nbytes, params=names)
        return future.value()[0]

    return dist.all_reduce(buffer, async_op=True).get_future().then(done)


def overlap_summary(events: dict) -> dict:
    """When the backward pass ended (the last gradient ready), when communication ended, the seconds spent in
    all-reduces (their union, `busy_seconds`) and the part of those seconds before the backward pass ended (hidden
    behind it)."""
    backward_end = max((t for _, t in events["ready"]), default=0.0)
    buckets = events["buckets"]
    hidden = busy_seconds({"start": b["start"], "end": min(b["end"], backward_end)} for b in buckets)
    comm_end = max((b["end"] for b in buckets), default=backward_end)
    return {"backward_end": backward_end, "comm_end": comm_end, "comm_busy": busy_seconds(buckets),
            "comm_hidden": hidden, "exposed": max(0.0, comm_end - backward_end)}


def plot_overlap(per_rank_events: list, title: str | None = None, ax=None):
    """`plot_timeline` of the watched steps, rank 0 on top: for each rank, a row of gradient-ready ticks (coloured by
    the bucket each gradient went into) and a row of all-reduce bars from hand-over to completion (one colour per
    bucket, on two half-rows in turn: several can be in flight), times in milliseconds; marks (`watch.mark`) as black
    lines named in a legend beside the chart. Where every rank's events carry "t0", the ranks share one time axis
    (from the earliest rank's `start()`), so that one all-reduce ends at the same moment on every rank. Returns the
    matplotlib Axes."""
    import matplotlib.pyplot as plt

    shared_clock = all("t0" in events for events in per_rank_events)
    first_t0 = min((events["t0"] for events in per_rank_events), default=0.0) if shared_clock else 0.0
    spans = []
    for rank, events in enumerate(per_rank_events):  # the list's order is the ranks'
        shift = events["t0"] - first_t0 if shared_clock else 0.0
        spans += [{**s, "rank": rank, "start": s["start"] + shift, "end": s["end"] + shift} for s in events["spans"]]
    bucket_of = {(s["rank"], name): s["index"] for s in spans if s["lane"] == ALL_REDUCE for name in s["params"]}

    def colour(span):
        bucket = span["index"] if span["lane"] == ALL_REDUCE else bucket_of.get((span["rank"], span["param"]), 9)
        return plt.get_cmap("tab10")(bucket % 10)

    ax = plot_timeline([s for s in spans if s["lane"] != MARKS], ax=ax, color=colour, lanes=[READY, ALL_REDUCE],
                       stack=2, start_at_zero=False, marks=[s for s in spans if s["lane"] == MARKS],
                       title=title or "backward pass (ticks: a gradient is ready) and bucket all-reduces (bars), "
                                      "same colours")
    ax.set_xlabel("time since the first rank started the step (ms)" if shared_clock else
                  "time since the step started (ms)")
    ax.grid(axis="x", alpha=0.3)
    return ax
