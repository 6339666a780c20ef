"""Timelines: what each rank did and when, on one clock, as named spans; drawn as a Gantt chart (one row per rank).

    def work():
        timeline = distlab.Timeline()                    # every rank calls it: aligns this rank's clock to rank 0's
        with timeline.span("F", microbatch=0):           # a named span, with any metadata (plain values)
            y = layer(x)
        timeline.record("send", start, end, peer=1)      # or a span whose two ends you timed yourself
        return timeline.spans                            # plain dicts: they travel back from the rank
    per_rank = distlab.launch(work, 4)
    distlab.plot_timeline(per_rank)                      # rows: ranks (or (rank, lane) with a "lane" key)
    distlab.timeline_summary(per_rank)                   # makespan, and each rank's busy and idle seconds

A span is a dict {"name", "start", "end", "rank", **metadata}; times are seconds on rank 0's clock since the moment
rank 0 created its `Timeline` (its origin). The simulators of the lessons produce the same dicts, so a real run and
a simulation draw the same way, side by side.

Clocks. `time.perf_counter` is CLOCK_MONOTONIC on Linux: one clock for every process of a machine, but not across
machines. Each rank therefore estimates the offset of its clock from rank 0's by Cristian's algorithm (F. Cristian,
"Probabilistic clock synchronization", Distributed Computing 3, 1989): it sends a message, rank 0 answers with its
time T, and the rank takes T minus the midpoint of its round trip, keeping the round trip that was shortest; the
error is at most half that round trip (`uncertainty`: about 0.1 ms between processes of one machine, a few ms when
it is busy; the offset itself is then about 0). Two ranks' times agree within the sum of their two uncertainties
(each is bounded against rank 0's, not against the other's). Creating a `Timeline` is a collective of the group:
(world_size - 1) * `rounds` small exchanges with rank 0 and one broadcast, a few milliseconds; `align=False` skips
them (ranks of one machine, which share `perf_counter`, then add `origin` to reach one time axis, exactly).
"""
from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterable

import torch
import torch.distributed as dist

from .topology import global_rank, rank_or_zero, world_size_or_one

__all__ = ["Timeline", "plot_timeline", "timeline_summary", "busy_seconds"]

COLORS = {"F": "tab:blue", "B": "tab:green", "W": "tab:orange", "idle": "lightgrey"}  # what the lessons draw


class Timeline:
    """This rank's spans on rank 0's clock. Call it on every rank of `group` at once (a collective); with
    `align=False`, on this rank's own `clock`, from its own creation (`origin`), exchanging nothing."""

    def __init__(self, group=None, rounds: int = 8, clock: Callable[[], float] = time.perf_counter,
                 align: bool = True):
        self.clock, self.spans = clock, []
        self.offset, self.uncertainty = 0.0, 0.0  # seconds to add to `clock()` to read rank 0's clock; its error
        self.rank = rank_or_zero()  # the global rank, whatever the group
        align = align and world_size_or_one(group) > 1
        if align:
            self.offset, self.uncertainty = _offset_from_rank0(group, rounds, clock)
        origin = torch.tensor([clock()], dtype=torch.float64)  # rank 0's "now" is every rank's zero
        if align:
            dist.broadcast(origin, src=global_rank(group, 0), group=group)
        self.origin = origin.item()

    def now(self) -> float:
        """Seconds since rank 0 created its Timeline, on rank 0's clock."""
        return self.clock() + self.offset - self.origin

    def record(self, name: str, start: float, end: float, **metadata) -> dict:
        """Add a span whose ends (values of `now()`) you measured yourself; returns it."""
        span = {"name": name, "start": start, "end": end, "rank": self.rank, **metadata}
        self.spans.append(span)
        return span

    @contextlib.contextmanager
    def span(self, name: str, **metadata):
        """`with timeline.span("F", microbatch=3):` records the block's begin and end (also when it raises)."""
        start = self.now()
        try:
            yield
        finally:
            self.record(name, start, self.now(), **metadata)


def _offset_from_rank0(group, rounds: int, clock) -> tuple[float, float]:
    """Cristian's algorithm with every other rank in turn: (offset, half the shortest round trip) on this rank."""
    me, buffer = dist.get_rank(group), torch.zeros(1, dtype=torch.float64)
    best_offset, best_round_trip = 0.0, float("inf")
    for peer in range(1, dist.get_world_size(group)):
        for _ in range(rounds):
            if me == 0:  # rank 0 answers each question with its time
                dist.recv(buffer, src=global_rank(group, peer), group=group)
                buffer[0] = clock()
                dist.send(buffer, dst=global_rank(group, peer), group=group)
            elif me == peer:
                sent = clock()
                dist.send(buffer, dst=global_rank(group, 0), group=group)
                dist.recv(buffer, src=global_rank(group, 0), group=group)
                received = clock()
                if received - sent < best_round_trip:
                    best_round_trip = received - sent
                    best_offset = buffer.item() - (sent + received) / 2
    return (best_offset, best_round_trip / 2) if me else (0.0, 0.0)


def _by_rank(spans) -> list[list[dict]]:
    """Spans given per rank (a list of lists, as `launch` returns them) or as one flat list with "rank" keys."""
    spans = list(spans)
    if spans and isinstance(spans[0], dict):
        ranks = 1 + max(s["rank"] for s in spans)
        return [[s for s in spans if s["rank"] == r] for r in range(ranks)]
    return [list(rank_spans) for rank_spans in spans]


def busy_seconds(spans: Iterable[dict]) -> float:
    """Seconds covered by at least one of `spans` (overlapping spans count once)."""
    busy, reach = 0.0, float("-inf")
    for span in sorted(spans, key=lambda s: s["start"]):
        start, end = max(span["start"], reach), span["end"]
        busy += max(0.0, end - start)
        reach = max(reach, end)
    return busy


def timeline_summary(spans, names: Iterable[str] | None = None) -> dict:
    """{"makespan": last end - first start over all ranks, "busy": [per rank], "idle": [makespan - busy]}: seconds.

    `names` keeps only spans with those names (e.g. the computations, not the waits) as busy time."""
    per_rank = _by_rank(spans)
    every = [s for rank_spans in per_rank for s in rank_spans]
    makespan = max(s["end"] for s in every) - min(s["start"] for s in every) if every else 0.0
    keep = set(names) if names is not None else None
    busy = [busy_seconds(s for s in rank_spans if keep is None or s["name"] in keep) for rank_spans in per_rank]
    return {"makespan": makespan, "busy": busy, "idle": [makespan - b for b in busy]}


def plot_timeline(spans, *, ax=None, color: Callable[[dict], str] | None = None,
                  label: Callable[[dict], str] | None = None, title: str | None = None, unit: str = "ms",
                  row_name: str = "rank", start_at_zero: bool = True, lanes: Iterable[str] = (),
                  stack: int = 1, marks: Iterable[dict] = ()):
    """A Gantt chart: one row per rank (per (rank, lane) when spans have a "lane"), one bar per span; a span that
    lasts no time (start == end: an instant, e.g. a gradient becoming ready) is a tick across its row.

    spans: per rank (what `launch` returns) or a flat list with "rank" keys. color(span) -> a matplotlib colour
    (default: by name, `COLORS`, with a legend); label(span) -> the text in its bar (default: its "microbatch"). unit:
    "ms", "s" or "" (times drawn as they are: a simulator's time units). row_name: "rank", or "stage" for a
    simulation. lanes: the order of a rank's lanes, top down (the others follow, sorted). stack: the bars of a row,
    by start, take this many tracks of its height in turn, so that bars in flight together (e.g. all-reduces) hide
    one another less. marks: instants ({"name", "start", "rank"}) drawn as black lines across all of their rank's
    rows, named in the legend. Returns the matplotlib Axes.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    per_rank = _by_rank(spans)
    every = [s for rank_spans in per_rank for s in rank_spans]
    scale = {"ms": 1e3, "s": 1.0, "": 1.0}[unit]
    zero = min((s["start"] for s in every), default=0.0) if start_at_zero else 0.0
    order = list(lanes)
    rows = sorted({(s["rank"], s.get("lane", "")) for s in every},
                  key=lambda row: (row[0], order.index(row[1]) if row[1] in order else len(order), row[1]))
    if ax is None:
        ax = plt.subplots(figsize=(11, 0.45 * len(rows) + 1.2))[1]
    by_name = color is None
    color = color or (lambda s: COLORS.get(s["name"], "tab:purple"))
    label = label or (lambda s: str(s["microbatch"]) if "microbatch" in s else "")
    tracks = _tracks(every, stack)
    for s in every:
        y = rows.index((s["rank"], s.get("lane", "")))
        left, width = (s["start"] - zero) * scale, (s["end"] - s["start"]) * scale
        if width == 0:
            ax.vlines(left, y - 0.4, y + 0.4, color=color(s), lw=1.5)
            continue
        height = 0.8 / stack
        ax.barh(y - 0.4 + (tracks.get(id(s), 0) + 0.5) * height, width, left=left, height=height, color=color(s),
                edgecolor="white", linewidth=0.5)
        if label(s):
            ax.text(left + width / 2, y, label(s), ha="center", va="center", fontsize=7, color="white", clip_on=True)
    handles = _draw_marks(ax, marks, rows, zero, scale)
    ax.set_yticks(range(len(rows)), [f"{row_name} {r}" + (f" {lane}" if lane else "") for r, lane in rows])
    ax.invert_yaxis()
    ax.set_xlabel({"ms": "time (ms)", "s": "time (s)", "": "time"}[unit])
    ax.set_xlim(left=0)
    if by_name and every:  # a legend of the names drawn, beside the chart
        known = list(COLORS)
        names = sorted({s["name"] for s in every}, key=lambda n: (known.index(n) if n in known else len(known), n))
        handles = [Patch(color=color({"name": name}), label=name) for name in names] + handles
    if handles:
        ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, frameon=False)
    if title:
        ax.set_title(title)
    return ax


def _tracks(spans: list[dict], stack: int) -> dict:
    """{id(span): its track}: the bars of each row, by start, take `stack` tracks in turn (track 0 on top)."""
    turns, tracks = Counter(), {}
    for s in sorted((s for s in spans if s["end"] > s["start"]), key=lambda s: s["start"]):
        row = (s["rank"], s.get("lane", ""))
        tracks[id(s)], turns[row] = turns[row] % stack, turns[row] + 1
    return tracks


def _draw_marks(ax, marks: Iterable[dict], rows: list, zero: float, scale: float) -> list:
    """Black lines across each mark's rank's rows, one line style per name; returns their legend handles."""
    styles, handles = {}, []
    for mark in marks:
        ys = [y for y, (rank, _) in enumerate(rows) if rank == mark["rank"]]
        if mark["name"] not in styles:
            styles[mark["name"]] = ("--", ":", "-.")[len(styles) % 3]
        line = ax.plot([(mark["start"] - zero) * scale] * 2, [min(ys, default=0) - 0.45, max(ys, default=0) + 0.45],
                       color="k", ls=styles[mark["name"]], lw=0.9, label=mark["name"])[0]
        if len(handles) < len(styles):
            handles.append(line)
    return handles
