"""Watch DDP overlap communication with the backward pass: when each gradient became ready, when each bucket's
all-reduce started and ended, on every rank; and draw it.

    model = DistributedDataParallel(module, bucket_cap_mb=0.25)
    watch = distlab.watch_overlap(model)      # a hook on every parameter + a timed all-reduce as DDP's comm hook
    watch.start()                             # t = 0
    loss = loss_fn(model(x)); watch.mark("forward done")
    loss.backward()
    watch.events()                            # plain data: {"t0": ..., "ready": [...], "buckets": [...], ...}

    distlab.plot_overlap(distlab.launch(step_and_return_events, 4))   # one Gantt row of gradients, one of all-reduces

DDP copies gradients into buckets and all-reduces a bucket as soon as its last gradient is ready, while autograd goes
on computing the others (Li et al. 2020, *PyTorch Distributed: Experiences on Accelerating Data Parallel Training*,
§3.2.3). The comm hook here does what DDP's default one does (divide by the world size, all-reduce asynchronously) and
timestamps it: `start` when DDP hands the bucket over, `end` when the all-reduce's future completes (on the backend's
own thread, while the backward pass may still be running). Times are seconds since `start()`, from
`time.perf_counter`; `events()["t0"]` is that `start()` on `time.perf_counter`'s own clock, which on Linux
(CLOCK_MONOTONIC) is one clock for every process of the machine: adding it puts the ranks' events on one time axis.
The hook costs a Python call per bucket and per gradient: negligible next to the all-reduces.
"""
from __future__ import annotations

import time

import torch.distributed as dist

__all__ = ["OverlapWatch", "watch_overlap", "overlap_summary", "plot_overlap"]


class OverlapWatch:
    """Timestamps of one DDP model's backward passes (see the module's docstring). Create it before the first
    forward pass (DDP accepts a comm hook only then); `start()` before each step you want to watch."""

    def __init__(self, ddp_model):
        self._names = {id(p): name for name, p in ddp_model.module.named_parameters()}
        self._t0 = time.perf_counter()
        self.ready, self.buckets, self.marks = [], [], []
        for p in ddp_model.module.parameters():
            if p.requires_grad:
                p.register_post_accumulate_grad_hook(self._on_ready)
        ddp_model.register_comm_hook(self, _timed_all_reduce)

    def start(self) -> None:
        """Forget what was recorded; times count from now."""
        self.ready, self.buckets, self.marks = [], [], []
        self._t0 = time.perf_counter()

    def now(self) -> float:
        return time.perf_counter() - self._t0

    def mark(self, label: str) -> None:
        """A moment worth drawing (e.g. "forward done"), at the current time."""
        self.marks.append((label, self.now()))

    def record(self, label: str, start: float, nbytes: int) -> None:
        """An all-reduce you ran yourself (e.g. one flat all-reduce after `no_sync`), from `start` until now."""
        self.buckets.append({"index": len(self.buckets), "label": label, "start": start, "end": self.now(),
                             "nbytes": nbytes, "params": []})

    def _on_ready(self, param) -> None:
        self.ready.append((self._names[id(param)], self.now()))

    def events(self) -> dict:
        """What was recorded since `start()`, as plain data (it can come back from a rank); "t0" is `start()`'s
        `time.perf_counter()`."""
        return {"t0": self._t0, "ready": list(self.ready), "marks": list(self.marks),
                "buckets": sorted(self.buckets, key=lambda bucket: bucket["start"])}


def watch_overlap(ddp_model) -> OverlapWatch:
    """`OverlapWatch(ddp_model)`."""
    return OverlapWatch(ddp_model)


def _timed_all_reduce(watch: OverlapWatch, bucket):
    """DDP comm hook: the average of the bucket over the ranks (as DDP's default hook), timestamped into `watch`."""
    start = watch.now()
    buffer = bucket.buffer().div_(dist.get_world_size())
    names = [watch._names[id(p)] for p in bucket.parameters()]

    def done(future):
        watch.buckets.append({"index": bucket.index(), "label": f"bucket {bucket.index()}", "start": start,
                              "end": watch.now(), "nbytes": buffer.nbytes, "params": names})
        return future.value()[0]

    return dist.all_reduce(buffer, async_op=True).get_future().then(done)


def overlap_summary(events: dict) -> dict:
    """When the backward pass ended (the last gradient ready), when communication ended, the seconds spent in
    all-reduces (their union) and the part of those seconds before the backward pass ended (hidden behind it)."""
    backward_end = max((t for _, t in events["ready"]), default=0.0)
    spans = sorted((b["start"], b["end"]) for b in events["buckets"])
    busy = hidden = 0.0
    covered_until = -float("inf")
    for start, end in spans:  # union of the spans, in order
        start = max(start, covered_until)
        if end > start:
            busy += end - start
            hidden += max(0.0, min(end, backward_end) - start)
            covered_until = end
    comm_end = max((end for _, end in spans), default=backward_end)
    return {"backward_end": backward_end, "comm_end": comm_end, "comm_busy": busy, "comm_hidden": hidden,
            "exposed": max(0.0, comm_end - backward_end)}


def plot_overlap(per_rank_events: list, title: str | None = None, ax=None):
    """A Gantt chart, rank 0 on top: for each rank, a row of gradient-ready ticks (coloured by the bucket each
    gradient went into) and a row of all-reduce bars from hand-over to completion (one colour per bucket; even and odd
    buckets on two half-rows, since several can be in flight), times in milliseconds; marks (`watch.mark`) as black
    lines named in a legend beside the chart. Where every rank's events carry "t0", the ranks share one time axis
    (from the earliest rank's `start()`), so that one all-reduce ends at the same moment on every rank. Returns the
    matplotlib Axes."""
    import matplotlib.pyplot as plt

    shared_clock = all("t0" in events for events in per_rank_events)
    first_t0 = min((events["t0"] for events in per_rank_events), default=0.0) if shared_clock else 0.0

    if ax is None:
        _, ax = plt.subplots(figsize=(11, 0.9 + 0.8 * len(per_rank_events)))
    colour = lambda i: plt.get_cmap("tab10")(i % 10)  # noqa: E731
    ticks, labels = [], []
    for rank, events in enumerate(per_rank_events):
        events = _shifted(events, events["t0"] - first_t0) if shared_clock else events
        y_grad, y_comm = -2 * rank, -2 * rank - 1
        bucket_of = {name: b["index"] for b in events["buckets"] for name in b["params"]}
        for name, t in events["ready"]:
            ax.plot([t * 1e3] * 2, [y_grad - 0.35, y_grad + 0.35], color=colour(bucket_of.get(name, 9)), lw=1.5)
        for b in events["buckets"]:
            bottom = y_comm - 0.4 if b["index"] % 2 else y_comm + 0.02
            ax.broken_barh([(b["start"] * 1e3, max(b["end"] - b["start"], 1e-6) * 1e3)], (bottom, 0.38),
                           color=colour(b["index"]), alpha=0.85)
        for mark, (label, t) in enumerate(events["marks"]):  # in the legend, not beside the line: rows are tight
            ax.plot([t * 1e3] * 2, [y_comm - 0.45, y_grad + 0.45], color="k", ls=("--", ":", "-.")[mark % 3], lw=0.9,
                    label=label if rank == 0 else None)
        ticks += [y_grad, y_comm]
        labels += [f"rank {rank} gradients ready", f"rank {rank} all-reduce"]
    ax.set_yticks(ticks, labels)
    ax.set_xlabel("time since the first rank started the step (ms)" if shared_clock else
                  "time since the step started (ms)")
    ax.set_title(title or "backward pass (ticks: a gradient is ready) and bucket all-reduces (bars), same colours")
    ax.grid(axis="x", alpha=0.3)
    if any(events["marks"] for events in per_rank_events):
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return ax


def _shifted(events: dict, seconds: float) -> dict:
    """`events` with every time `seconds` later."""
    return {"ready": [(name, t + seconds) for name, t in events["ready"]],
            "marks": [(label, t + seconds) for label, t in events["marks"]],
            "buckets": [{**b, "start": b["start"] + seconds, "end": b["end"] + seconds} for b in events["buckets"]]}
