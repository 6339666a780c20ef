"""Benchmark 02: the lesson's hand-built ZeRO stages 0-3 next to PyTorch's FSDP2, per-rank peak bytes and step time.

    python benchmarks/bench_02.py            # the full run: 2 and 4 ranks, a 2.4M-parameter MLP (~1 min on 2 cores)
    python benchmarks/bench_02.py --quick    # smoke run, seconds: 2 ranks, a tiny MLP, 2 timed steps

Contenders, each training the same MLP in mixed precision (bf16 compute, fp32 master weights, AdamW) on a quarter
(half) of each batch: the classes of lessons/02_sharding.ipynb (`Replicated` = stage 0, `ShardedStates` = 1,
`ShardedGradients` = 2, `ShardedParameters` = 3, with the lesson's point-to-point reduce-scatter and all-gather;
taken from the notebook's code cells by name, so the benchmark measures what the lesson teaches), and FSDP2
(`fully_shard` on each linear layer and the root, `MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32)`).

Per rank, in one launch per contender and world size:
- memory: a fresh model built, then trained for 2 steps, inside `distlab.track_memory()`: `held` = what stays
  allocated after the steps (the model states), `peak` = the most bytes of tensors alive at once during the steps
  (states, gathered layers, gradients, activations, temporaries; the peak is reset once the states are built).
  FSDP2's allocations inside DTensor's own dispatch are seen only as their results; its `resize_` of the gathered
  parameters' storage is seen (see distlab.memory).
- time: another fresh model, 1 warm-up step then `steps` timed steps without tracking (tracking slows every op);
  a step's time is the slowest rank's (after a barrier), the median over steps is reported.
Ratios are against stage 0 at the same world size. Every rank of every contender uses gloo and one thread.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

import distlab
from distlab.notebook_source import load_definitions

REPO = Path(__file__).resolve().parents[1]
LESSON = REPO / "lessons" / "02_sharding.ipynb"
FROM_LESSON = ("exchange", "reduce_scatter", "all_gather", "adamw_", "FlatLayer", "Replicated", "ShardableLinear",
               "forward", "ShardedStates", "ShardedGradients", "ShardedParameters")
STAGES = {0: "Replicated", 1: "ShardedStates", 2: "ShardedGradients", 3: "ShardedParameters"}
FULL = {"layers": [(256, 1024), (1024, 1024), (1024, 1024), (1024, 1)], "batch": 64, "world_sizes": (2, 4),
        "steps": 5}
QUICK = {"layers": [(16, 64), (64, 64), (64, 1)], "batch": 16, "world_sizes": (2,), "steps": 2}


def load_lesson(config: dict) -> dict:
    """The lesson's functions and classes (FROM_LESSON), exec'd from its code cells with this run's model."""
    ns = load_definitions(LESSON, FROM_LESSON, {"__name__": "lesson_02", "torch": torch, "dist": dist, "nn": nn, "F": F,
                                                "distlab": distlab, "LR": 1e-3, "LAYERS": config["layers"]})
    return {name: ns[name] for name in FROM_LESSON}  # functions of a module-less namespace travel by value


def make_model(layers):
    torch.manual_seed(0)
    modules = []
    for i, (fan_in, fan_out) in enumerate(layers):
        modules += [nn.Linear(fan_in, fan_out)] + ([nn.Tanh()] if i < len(layers) - 1 else [])
    return nn.Sequential(*modules)


def rank_batch(layers, batch, step):
    generator = torch.Generator().manual_seed(step)
    x, y = torch.randn(batch, layers[0][0], generator=generator), torch.randn(batch, 1, generator=generator)
    rank, world = dist.get_rank(), dist.get_world_size()
    return x.chunk(world)[rank], y.chunk(world)[rank]


def build(contender, lesson, layers):
    """(one training step as a function of (x, y, t), the objects holding the states)."""
    model = make_model(layers)
    if contender == "FSDP2":
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
        policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        for module in model:
            if isinstance(module, nn.Linear):
                fully_shard(module, mp_policy=policy)
        fully_shard(model, mp_policy=policy)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=False)

        def step(x, y, t):
            F.mse_loss(model(x).float(), y).backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=False)
        return step, (model, optimizer)
    layer_class = lesson[STAGES[contender]]
    layers_ = [layer_class(m) for m in model if isinstance(m, nn.Linear)]
    del model

    def step(x, y, t):
        F.mse_loss(lesson["forward"](layers_, x.to(torch.bfloat16)).float(), y).backward()
        for layer in layers_:
            layer.step(t)
    return step, layers_


def measure(contender, lesson, layers, batch, steps):
    torch.set_num_threads(1)
    with distlab.track_memory() as mem:
        step, states = build(contender, lesson, layers)
        mem.reset_peak()  # from the states, without the transients of building them from an fp32 nn.Module
        for t in (1, 2):
            step(*rank_batch(layers, batch, t), t)
    peak, held = mem.peak, mem.live
    del step, states
    step, states = build(contender, lesson, layers)
    times = []
    for t in range(1, steps + 2):
        x, y = rank_batch(layers, batch, t)
        dist.barrier()
        start = time.perf_counter()
        step(x, y, t)
        elapsed = torch.tensor([time.perf_counter() - start])
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)  # the slowest rank's step
        times.append(elapsed.item())
    return {"peak": peak, "held": held, "step_s": statistics.median(times[1:])}  # times[0]: warm-up


def run(config: dict) -> dict:
    lesson = load_lesson(config)
    results = {}
    for world_size in config["world_sizes"]:
        for contender in (0, 1, 2, 3, "FSDP2"):
            ranks = distlab.launch(measure, world_size, args=(contender, lesson, config["layers"], config["batch"],
                                                              config["steps"]), timeout=300, collective_timeout=60,
                                   backend="gloo", threads=1)
            results[world_size, contender] = {"peak": max(r["peak"] for r in ranks),
                                              "held": max(r["held"] for r in ranks), "step_s": ranks[0]["step_s"]}
    return results


def table(results: dict, config: dict) -> str:
    psi = sum(i * o + o for i, o in config["layers"])
    lines = [f"Ψ = {psi:,} parameters; bytes are the largest over ranks; ratios against stage 0 at the same N.", "",
             "| N | contender | held after a step | peak in a step | peak / stage 0 | step ms | step / stage 0 |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    for (world_size, contender), r in results.items():
        base = results[world_size, 0]
        name = f"stage {contender} (lesson)" if contender != "FSDP2" else "FSDP2 (fully_shard)"
        lines.append(f"| {world_size} | {name} | {r['held']:,} | {r['peak']:,} | {r['peak'] / base['peak']:.2f} | "
                     f"{1e3 * r['step_s']:.1f} | {r['step_s'] / base['step_s']:.2f} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 ranks, a tiny model, 2 timed steps (a smoke run)")
    args = parser.parse_args(argv)
    config = QUICK if args.quick else FULL
    start = time.perf_counter()
    print(f"bench_02 {time.strftime('%Y-%m-%d %H:%M')}: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
          f"torch {torch.__version__}, Python {sys.version.split()[0]}, {'quick' if args.quick else 'full'}, "
          f"1 thread per rank\n")
    print(table(run(config), config))
    print(f"\nbenchmark ran {time.perf_counter() - start:.0f} s; load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
