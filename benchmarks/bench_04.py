"""Benchmark 04: one Transformer block, single process vs tensor parallel on 2 and 4 ranks, hand-built vs DTensor.

    python benchmarks/bench_04.py            # the full run: a block of width 512, 8 heads, 4 x 256 tokens (~1 min)
    python benchmarks/bench_04.py --quick    # smoke run, seconds: the lesson's tiny block, 2 ranks, 3 timed steps

Contenders, each one forward and backward of the same `distlab.models.Block` (same seed, same input, same upstream
gradient), fp32, gloo, one thread per rank:
- `1 process`: the Block itself, run on one rank of a launch (so it pays the same per-process costs);
- `hand-built TP`: the lesson's `shard_block` + `tp_block` with its f and g (lessons/04_tensor_parallelism.ipynb,
  taken from the notebook's code cells by name, so the benchmark measures what the lesson teaches);
- `hand-built TP+SP`: the same with the lesson's sequence-parallel operators (all-gather, point-to-point
  reduce-scatter);
- `DTensor TP`: `parallelize_module` with `ColwiseParallel` / `RowwiseParallel` on a copy of the Block.
Per contender and world size: 2 warm-up steps, then `steps` timed steps; a step's time is the slowest rank's (after a
barrier), the median is reported, with the bytes a rank wrote per step (`distlab.count_bytes_written`). Ratios are
against `1 process` in the same run.

What transfers to GPUs: the bytes per step (they are the algorithm's: 4 all-reduces of a [b, s, h] activation per
layer), and that SP moves the same bytes as TP. What does not: the times. On CPU cores a rank computes slowly and
gloo's loopback TCP is cheap next to it, so splitting pays off; on GPUs with NVLink the matmuls are fast and the
all-reduces are on the critical path, which is why TP stays within a node and why overlap matters (lesson 6).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F

import distlab
from distlab.notebook_source import load_definitions
from distlab.models import ModelConfig, TinyTransformer

REPO = Path(__file__).resolve().parents[1]
LESSON = REPO / "lessons" / "04_tensor_parallelism.ipynb"
FROM_LESSON = ("F_", "G_", "shard_block", "tp_block", "gather_seq", "scatter_seq", "AllGatherSeq",
               "ReduceScatterSeq")
FULL = {"config": dict(vocab_size=64, dim=512, n_heads=8, n_layers=1, max_seq_len=256), "batch": 4, "seq": 256,
        "world_sizes": (2, 4), "steps": 5}
QUICK = {"config": dict(vocab_size=64, dim=32, n_heads=4, n_layers=1, max_seq_len=64), "batch": 2, "seq": 16,
         "world_sizes": (2,), "steps": 3}


def load_lesson() -> dict:
    """The lesson's operators and block functions (FROM_LESSON), exec'd from its code cells."""
    return load_definitions(LESSON, FROM_LESSON, {"__name__": "lesson_04", "torch": torch, "dist": dist, "F": F})


def run_contender(kind: str, setup: dict, lesson: dict) -> dict:
    """On each rank: time forward+backward of the block `steps` times; the slowest rank's seconds per step."""
    t, r = dist.get_world_size(), dist.get_rank()
    config = ModelConfig(**setup["config"])
    block = TinyTransformer(config, seed=0).blocks[0]
    generator = torch.Generator().manual_seed(1)
    x_full = torch.randn(setup["batch"], setup["seq"], config.dim, generator=generator)
    upstream = torch.randn(x_full.shape, generator=generator)
    sp = kind == "hand-built TP+SP"
    if sp:
        x_full, upstream = x_full.chunk(t, dim=1)[r], upstream.chunk(t, dim=1)[r]
    if kind == "DTensor TP":
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
        plan = {"attn.q_proj": ColwiseParallel(), "attn.k_proj": ColwiseParallel(), "attn.v_proj": ColwiseParallel(),
                "attn.o_proj": RowwiseParallel(), "mlp.up": ColwiseParallel(), "mlp.down": RowwiseParallel()}
        step_fn = parallelize_module(block, init_device_mesh("cpu", (t,)), plan)
    elif kind.startswith("hand-built"):
        p = lesson["shard_block"](block, t, r)
        f, g = ((lesson["AllGatherSeq"].apply, lesson["ReduceScatterSeq"].apply) if sp
                else (lesson["F_"].apply, lesson["G_"].apply))
        step_fn = lambda x: lesson["tp_block"](p, x, block.attn.core, f, g)  # noqa: E731
    else:
        step_fn = block
    times, written = [], []
    for step in range(2 + setup["steps"]):
        x = x_full.clone().requires_grad_()
        dist.barrier()
        start = time.perf_counter()
        with distlab.count_bytes_written() as counted:
            (step_fn(x) * upstream).sum().backward()
        elapsed = torch.tensor(time.perf_counter() - start)
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)  # the step ends when the slowest rank is done
        if step >= 2:
            times.append(elapsed.item())
            written.append(counted.bytes)
    return {"seconds": statistics.median(times), "bytes": statistics.median(written)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    args = parser.parse_args(argv)
    setup, lesson = (QUICK if args.quick else FULL), load_lesson()
    rows = [("1 process", 1)] + [(kind, t) for t in setup["world_sizes"]
                                 for kind in ("hand-built TP", "hand-built TP+SP", "DTensor TP")]
    results = {}
    for kind, t in rows:
        out = distlab.launch(run_contender, t, args=(kind, setup, lesson), timeout=600, collective_timeout=120,
                             backend="gloo")
        results[(kind, t)] = out[0]
    base = results[("1 process", 1)]["seconds"]
    c = setup["config"]
    print(f"one Block: dim {c['dim']}, {c['n_heads']} heads, batch {setup['batch']} x {setup['seq']} tokens, fp32, "
          f"gloo; median of {setup['steps']} forward+backward steps (slowest rank)")
    print(f"{'contender':20} {'ranks':>5} {'ms/step':>9} {'vs 1 process':>13} {'bytes/rank/step':>16}")
    for (kind, t), result in results.items():
        print(f"{kind:20} {t:>5} {result['seconds'] * 1e3:>9.2f} {result['seconds'] / base:>12.2f}x "
              f"{result['bytes']:>16,.0f}")
    for t in setup["world_sizes"]:
        tp, sp = results[("hand-built TP", t)], results[("hand-built TP+SP", t)]
        dtensor = results[("DTensor TP", t)]
        print(f"t={t}: TP+SP / TP bytes {sp['bytes'] / tp['bytes']:.2f}; DTensor / hand-built time "
              f"{dtensor['seconds'] / tp['seconds']:.2f}, bytes {dtensor['bytes'] / tp['bytes']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
