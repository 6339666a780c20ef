"""Benchmark 06: DDP step time with and without overlap, against the bucket cap; autocast bf16/fp16 against fp32.

    python benchmarks/bench_06.py            # the full run: a model of width 256, 4 layers (12.6 MB of gradients),
                                             #   2 and 4 ranks, 7 caps (~3 min on 2 cores)
    python benchmarks/bench_06.py --quick    # smoke run, seconds: the lesson's tiny model, 2 ranks, 2 caps

Part 1, overlap. `distlab.TinyTransformer` under `DistributedDataParallel`, gloo, one thread per rank, each rank its
own batch; a step is one forward and backward pass, timed on the slowest rank (after a barrier), the median of the
timed steps after 2 warm-up steps (DDP rebuilds its buckets at the 2nd). The contenders take turns step by step (the
machine is shared: a drift in its load then weighs on all of them). Contenders:
- `cap C MB`: DDP with `bucket_cap_mb=C` (its first bucket too): all-reduces overlapped with the backward pass;
- `after backward`: the backward pass under `no_sync()`, then one all-reduce of all gradients flattened (no overlap);
- `no communication`: the backward pass under `no_sync()` alone (the floor: what overlap could at best reach).
Ratios are against `after backward` in the same run. Li et al. 2020 (PyTorch Distributed, VLDB), §3.2.3 and Fig. 9.

Part 2, autocast. One process, forward and backward of the model under `torch.autocast("cpu", dtype)` (bf16, fp16)
and in plain fp32; the median of the timed steps, as a ratio to fp32.

What transfers to GPUs: that tiny buckets cost (a latency per all-reduce, dozens of times), and the bytes. What does
not: the right side of the U and the autocast ratios. On GPUs, NCCL moves the data while the SMs compute, so overlap
hides the all-reduce almost for free and one huge bucket (no overlap) is slower; here gloo's threads and the ranks
share the CPU cores, so an all-reduce in flight slows the backward pass it overlaps. On GPUs, 16-bit matmuls run on
tensor cores at several times the fp32 rate; on a CPU without bf16/fp16 matrix instructions (AMX, AVX512-BF16),
autocast adds casts and may well be slower than fp32.
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

import distlab
from distlab.models import ModelConfig, TinyTransformer, random_batch

FULL = {"config": dict(vocab_size=512, dim=256, n_layers=4, n_heads=8, max_seq_len=128), "batch": 4, "seq": 64,
        "world_sizes": (2, 4), "caps_mb": (0.01, 0.05, 0.25, 1.0, 4.0, 25.0), "steps": 5}
QUICK = {"config": dict(vocab_size=64, dim=32, n_layers=2, n_heads=4, max_seq_len=64), "batch": 2, "seq": 16,
         "world_sizes": (2,), "caps_mb": (0.01, 25.0), "steps": 2}


def ddp_step_times(setup: dict) -> dict:
    """On each rank: {contender: seconds of each timed step, slowest rank}. The contenders take turns, one step each,
    so that a change in the machine's load (it is shared) weighs on all of them alike."""
    from torch.nn.parallel import DistributedDataParallel

    config = ModelConfig(**setup["config"])
    tokens, targets = random_batch(config, setup["batch"], setup["seq"], seed=dist.get_rank())
    caps = {f"cap {cap:g} MB": cap for cap in setup["caps_mb"]} | {"after backward": None, "no communication": None}
    models = {name: DistributedDataParallel(TinyTransformer(config, seed=0), bucket_cap_mb=cap)
              for name, cap in caps.items()}
    times = {name: [] for name in caps}
    for step in range(2 + setup["steps"]):  # 2 warm-up steps: DDP rebuilds its buckets at the 2nd
        for name, model in models.items():
            dist.barrier()
            start = time.perf_counter()
            with model.no_sync() if caps[name] is None else contextlib.nullcontext():
                F.cross_entropy(model(tokens).flatten(0, 1), targets.flatten()).backward()
            if name == "after backward":
                dist.all_reduce(torch.cat([p.grad.flatten() for p in model.parameters()]))
            elapsed = torch.tensor(time.perf_counter() - start)
            dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)  # the step ends when the slowest rank is done
            if step >= 2:
                times[name].append(elapsed.item())
            model.zero_grad()
    return times


def autocast_times(setup: dict) -> dict:
    """{dtype name: seconds of each timed forward+backward step} in this process, one thread, taking turns."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as a rank runs (and the same for every contender)
    config = ModelConfig(**setup["config"])
    tokens, targets = random_batch(config, setup["batch"], setup["seq"], seed=0)
    model = TinyTransformer(config, seed=0)
    dtypes = {"fp32": None, "bf16 autocast": torch.bfloat16, "fp16 autocast": torch.float16}
    times = {name: [] for name in dtypes}
    for step in range(1 + setup["steps"]):
        for name, dtype in dtypes.items():
            start = time.perf_counter()
            with torch.autocast("cpu", dtype=dtype or torch.float32, enabled=dtype is not None):
                loss = F.cross_entropy(model(tokens).flatten(0, 1), targets.flatten())
            loss.backward()
            if step >= 1:
                times[name].append(time.perf_counter() - start)
            model.zero_grad()
    torch.set_num_threads(threads)
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    args = parser.parse_args(argv)
    setup = QUICK if args.quick else FULL
    config = ModelConfig(**setup["config"])
    gradient_mb = TinyTransformer(config).num_parameters() * 4 / 2**20
    print(f"TinyTransformer dim {config.dim}, {config.n_layers} layers: {gradient_mb:.2f} MiB of fp32 gradients; "
          f"batch {setup['batch']} x {setup['seq']} tokens per rank; median of {setup['steps']} steps")
    for world_size in setup["world_sizes"]:
        per_rank = distlab.launch(ddp_step_times, world_size, args=(setup,), timeout=900, collective_timeout=300,
                                  backend="gloo")
        medians = {name: statistics.median(seconds) for name, seconds in per_rank[0].items()}
        base = medians["after backward"]
        print(f"\n{world_size} ranks (gloo): forward + backward per step")
        print(f"{'contender':18} {'ms/step':>9} {'vs after backward':>18}")
        for name, seconds in medians.items():
            print(f"{name:18} {seconds * 1e3:>9.1f} {seconds / base:>17.2f}x")
        best = min((s, n) for n, s in medians.items() if n.startswith("cap"))
        smallest = medians[f"cap {setup['caps_mb'][0]:g} MB"]
        print(f"{world_size} ranks: best cap {best[1][4:]} ({best[0] / base:.2f}x of after backward); smallest cap "
              f"{smallest / base:.2f}x; communication floor {medians['no communication'] / base:.2f}x")
    times = {name: statistics.median(seconds) for name, seconds in autocast_times(setup).items()}
    print("\none process, forward + backward per step")
    for name, seconds in times.items():
        print(f"{name:18} {seconds * 1e3:>9.1f} ms {seconds / times['fp32']:>6.2f}x of fp32")
    print(f"autocast bf16 / fp32 time {times['bf16 autocast'] / times['fp32']:.2f}; fp16 / fp32 time "
          f"{times['fp16 autocast'] / times['fp32']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
