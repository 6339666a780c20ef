"""Benchmark 05: GPipe, 1F1B and interleaved 1F1B on 4 ranks, hand-built vs torch.distributed.pipelining.

    python benchmarks/bench_05.py            # the full run: m = 8 microbatches, ops of 25 / 50 ms, 3 repeats (~1 min)
    python benchmarks/bench_05.py --quick    # smoke run, seconds: m = 4, ops of 5 / 10 ms, 1 repeat, no memory

Every contender runs the lesson's model (lessons/05_pipeline.ipynb: `TinyTransformer`, 8 layers, cut into `Part`s;
the lesson's `Part`, `PipelineRank`, `run_schedule`, `gpipe`, `one_f_one_b` and `simulate` are taken from the
notebook's cells by name, so the benchmark measures what the lesson teaches) with every part wrapped so that its
forward lasts its real compute plus t_f / v and its backward its real compute plus t_b / v (a stand-in for a device
busy computing: 4 ranks share the CPU cores, sleeping does not need one). The same wrapped parts run under
- `hand-built`: the lesson's executor, with the lesson's schedules (interleaved: PyTorch's order, as in the lesson);
- `torch`: `PipelineStage`s under `ScheduleGPipe`, `Schedule1F1B`, `ScheduleInterleaved1F1B` (one warm-up step first).
Reported, per contender: the step's makespan (first op's start to last op's end over all ranks, on clocks aligned by
`distlab.Timeline`; the best of the repeats), the simulator's makespan for the same schedule with t_f, t_b (zero
communication, zero compute) and their ratio; and the peak bytes `distlab.track_memory` saw allocated per rank during
one step, as a ratio to GPipe's on the same rank (the first rank, which keeps the most).

What transfers to GPUs: the simulated makespans and the memory ratios (they are the schedules'). What does not: the
overhead in the measured/simulated ratio, which here is Python, loopback TCP and a shared CPU's scheduler.
"""
from __future__ import annotations

import argparse
import queue
import sys
import threading
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

import distlab
from distlab.notebook_source import load_definitions
from distlab.models import ModelConfig, TinyTransformer, random_batch

REPO = Path(__file__).resolve().parents[1]
LESSON = REPO / "lessons" / "05_pipeline.ipynb"
FROM_LESSON = ("CONFIG", "message_tag", "Part", "PipelineRank", "receive", "compute", "send", "finish", "run_schedule",
               "gpipe", "one_f_one_b", "uniform", "simulate", "makespan", "OP")
FULL = {"microbatches": 8, "t_f": 0.025, "t_b": 0.050, "repeats": 3, "memory": True}
QUICK = {"microbatches": 4, "t_f": 0.005, "t_b": 0.010, "repeats": 1, "memory": False}
P, V, BATCH, SEQ = 4, 2, 16, 32


def load_lesson() -> dict:
    """The lesson's pipeline (FROM_LESSON: definitions and assignments of those names), exec'd from its code cells."""
    ns = load_definitions(LESSON, FROM_LESSON, {
        "__name__": "lesson_05", "torch": torch, "dist": dist, "nn": nn, "F": F, "time": time, "queue": queue,
        "threading": threading, "distlab": distlab, "ModelConfig": ModelConfig, "TinyTransformer": TinyTransformer,
        "random_batch": random_batch})
    for method in ("receive", "compute", "send", "finish"):  # the lesson defines them in cells after the class
        setattr(ns["PipelineRank"], method, ns[method])
    return ns


class _SleepInBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, seconds):
        ctx.seconds = seconds
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        time.sleep(ctx.seconds)
        return grad, None


class Padded(nn.Module):
    """A model part whose forward takes t_f longer and whose backward t_b longer (what a busy device would add)."""

    def __init__(self, part, t_f, t_b):
        super().__init__()
        self.part, self.t_f, self.t_b = part, t_f, t_b

    def forward(self, x):
        if x.requires_grad:  # the backward reaches the part's input: pad it there, once the part's own backward ran
            x = _SleepInBackward.apply(x, self.t_b)
        y = self.part(x)
        time.sleep(self.t_f)
        return y if x.requires_grad else _SleepInBackward.apply(y, self.t_b)  # the first part: pad at its output


def padded_parts(lesson, chunks, setup, pad=True):
    p, rank = dist.get_world_size(), dist.get_rank()
    model = TinyTransformer(lesson["CONFIG"], seed=0)
    parts = [lesson["Part"](model, c * p + rank, chunks * p) for c in range(chunks)]
    if pad:
        parts = [Padded(part, setup["t_f"] / chunks, setup["t_b"] / chunks) for part in parts]
    return model, parts


def torch_order(lesson, m, chunks):
    """PyTorch's interleaved 1F1B for this rank, as (op, microbatch, chunk) (the lesson's section 4)."""
    from torch.distributed.pipelining import PipelineStage, ScheduleInterleaved1F1B
    p, rank = dist.get_world_size(), dist.get_rank()
    _, parts = padded_parts(lesson, chunks, None, pad=False)
    stages = [PipelineStage(part, c * p + rank, chunks * p, torch.device("cpu")) for c, part in enumerate(parts)]
    order = ScheduleInterleaved1F1B(stages, n_microbatches=m).pipeline_order[rank]
    # by the member's name, as the lesson does: `.value` is "F"/"B" only where _ComputationType is a str enum
    return [(lesson["OP"][a.computation_type.name], a.microbatch_index, a.stage_index // p) for a in order
            if a is not None]


def hand_built(lesson, schedule, setup, memory):
    """On each rank: (spans of the fastest repeat, peak bytes of one step or None)."""
    chunks = 1 + max(c for _, _, c in schedule[0])
    model, parts = padded_parts(lesson, chunks, setup)
    spans = []
    for _ in range(setup["repeats"]):
        model.zero_grad()
        this_rank = lesson["PipelineRank"](parts, *random_batch(lesson["CONFIG"], BATCH, SEQ, seed=1),
                                           setup["microbatches"])
        timeline = distlab.Timeline()
        lesson["run_schedule"](schedule, this_rank, timeline)
        spans.append(timeline.spans)
    peak = None
    if memory:
        this_rank = lesson["PipelineRank"](parts, *random_batch(lesson["CONFIG"], BATCH, SEQ, seed=1),
                                           setup["microbatches"])
        with distlab.track_memory() as tracked:
            lesson["run_schedule"](schedule, this_rank)
        peak = tracked.peak
    return spans, peak


def with_torch(lesson, kind, setup, memory):
    """The same padded parts under torch.distributed.pipelining: (spans of the fastest step, peak bytes or None)."""
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe, ScheduleInterleaved1F1B
    p, rank, chunks = dist.get_world_size(), dist.get_rank(), V if kind == "interleaved" else 1
    model, parts = padded_parts(lesson, chunks, setup)
    stages = [PipelineStage(part, c * p + rank, chunks * p, torch.device("cpu")) for c, part in enumerate(parts)]
    loss_fn = lambda logits, target: F.cross_entropy(logits.flatten(0, 1), target.flatten())  # noqa: E731
    classes = {"GPipe": ScheduleGPipe, "1F1B": Schedule1F1B, "interleaved": ScheduleInterleaved1F1B}
    schedule = classes[kind](stages if chunks > 1 else stages[0], n_microbatches=setup["microbatches"],
                             loss_fn=loss_fn)
    tokens, targets = random_batch(lesson["CONFIG"], BATCH, SEQ, seed=1)

    def step():
        model.zero_grad()
        schedule.step(tokens if rank == 0 else None, target=targets if rank == p - 1 else None)

    step()  # the first step also infers the shapes the stages exchange
    spans = []
    for _ in range(setup["repeats"]):
        timeline = distlab.Timeline()
        with timeline.span("step"):
            step()
        spans.append(timeline.spans)
    peak = None
    if memory:
        with distlab.track_memory() as tracked:
            step()
        peak = tracked.peak
    return spans, peak


def run(fn, *args):
    results = distlab.launch(fn, P, args=args, timeout=600, collective_timeout=120, backend="gloo")
    repeats = [[spans[i] for spans, _ in results] for i in range(len(results[0][0]))]
    return min(distlab.timeline_summary(spans)["makespan"] for spans in repeats), results[0][1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    args = parser.parse_args(argv)
    setup, lesson = (QUICK if args.quick else FULL), load_lesson()
    m = setup["microbatches"]
    interleaved = distlab.launch(torch_order, P, args=(lesson, m, V), timeout=120)
    schedules = {"GPipe": lesson["gpipe"](P, m), "1F1B": lesson["one_f_one_b"](P, m), "interleaved": interleaved}
    rows = {}
    for kind, schedule in schedules.items():
        durations = lesson["uniform"](setup["t_f"], setup["t_b"], V if kind == "interleaved" else 1)
        simulated = lesson["makespan"](lesson["simulate"](schedule, durations))
        rows[f"hand-built {kind}"] = (*run(hand_built, lesson, schedule, setup, setup["memory"]), simulated)
        rows[f"torch {kind}"] = (*run(with_torch, lesson, kind, setup, setup["memory"]), simulated)
    print(f"p={P} ranks, m={m} microbatches of {BATCH // m} x {SEQ} tokens, ops padded to t_f={setup['t_f'] * 1e3:g} "
          f"ms, t_b={setup['t_b'] * 1e3:g} ms per stage; best of {setup['repeats']}; gloo, 1 thread per rank")
    print(f"{'contender':24} {'measured ms':>12} {'simulated ms':>13} {'measured/sim':>13} {'peak KiB':>9} "
          f"{'peak/GPipe':>11}")
    for name, (measured, peak, simulated) in rows.items():
        gpipe_peak = rows[name.rsplit(" ", 1)[0] + " GPipe"][1]
        memory = f"{peak / 1024:>9.0f} {peak / gpipe_peak:>10.2f}x" if peak else f"{'-':>9} {'-':>11}"
        print(f"{name:24} {measured * 1e3:>12.0f} {simulated * 1e3:>13.0f} {measured / simulated:>12.2f}x {memory}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
