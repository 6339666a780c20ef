"""Benchmark 07: decode throughput of the tiny model, tensor-parallel on 1/2/4 ranks and pipelined with 1/2/4 requests
in flight, measured side by side with what the lesson's cost model predicts.

    python benchmarks/bench_07.py            # the full run: width 256, 4 layers, 8 heads (2 KV heads), ~1 min
    python benchmarks/bench_07.py --quick    # smoke run, seconds: the lesson's tiny model, 2 ranks

Contenders, all greedy decoding of the same prompts with a KV cache (fp32, gloo, one thread per rank), with the code
the lesson teaches (lessons/07_inference.ipynb, its functions taken from its code cells by name):
- `TP t`: `distlab.models.tp_generate` on t ranks, each with the heads the lesson's `heads_of` gives it (attention
  and the KV cache split by heads, every layer the `TensorParallelBlock` the lesson derives: 2 all-reduces per layer
  per token); `TP 1` is one process, `TinyTransformer.generate(..., use_cache=True)`. Tokens/s = batch *
  (n_long - n_short) / (time of n_long tokens - time of n_short tokens), so that building the model and the prefill
  cancel out; the slowest rank's times (after a barrier), the best of 3 runs.
- `PP p, m in flight`: `pp_generate` on p stages with m requests (one sequence each); tokens/s = m * n_new / the time
  from the first stage's start to the last stage's end (the lesson's timeline spans), the best of 3 runs.
The cost model beside each (the lesson's section 6, on this machine): one process's measured time per step s1 is the
"bytes or FLOPs" term; a TP step is s1 / t + 2 * layers * (one all-reduce of [batch, 1, dim], measured on t ranks);
a pipelined step is s1 + (p - 1) * (one point-to-point hop, measured) and makes min(m, p) tokens, s1 here being one
process decoding one request (`pp_generate` on 1 rank). Its predictions
assume t (or p) cores: on a machine with fewer cores, or busy ones, the measured ratios fall short, which is the
lesson of the comparison (the model counts bytes and messages, not a shared CPU).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F

from distlab.notebook_source import load_definitions
import distlab
from distlab.models import KVCache, ModelConfig, TinyTransformer, random_batch, tp_generate

REPO = Path(__file__).resolve().parents[1]
LESSON = REPO / "lessons" / "07_inference.ipynb"
FROM_LESSON = ("heads_of", "pp_generate", "stage_compute", "receive_token")
FULL = {"config": dict(vocab_size=256, dim=256, n_layers=4, n_heads=8, n_kv_heads=2, max_seq_len=64), "batch": 4,
        "prompt": 8, "n_short": 4, "n_long": 20, "tp": (1, 2, 4), "pp": (2, 4), "in_flight": (1, 2, 4)}
QUICK = {"config": dict(vocab_size=64, dim=32, n_layers=4, n_heads=4, n_kv_heads=2, max_seq_len=64), "batch": 2,
         "prompt": 6, "n_short": 2, "n_long": 6, "tp": (1, 2), "pp": (2,), "in_flight": (1, 2)}
LAUNCH = distlab.LaunchPreset(timeout=600, collective_timeout=120, backend="gloo")
REPEATS = 3


def load_lesson() -> dict:
    """The lesson's functions named in FROM_LESSON, exec'd from its code cells."""
    ns = {"__name__": "lesson_07", "torch": torch, "dist": dist, "F": F, "time": time, "distlab": distlab,
          "KVCache": KVCache, "TinyTransformer": TinyTransformer, "CONFIG": ModelConfig()}
    return load_definitions(LESSON, FROM_LESSON, ns)


def slowest(seconds: float) -> float:
    value = torch.tensor(seconds)
    dist.all_reduce(value, op=dist.ReduceOp.MAX)
    return value.item()


def rank_tp(lesson: dict, setup: dict) -> dict:
    """Seconds for n_short and n_long tokens (slowest rank), and one all-reduce of [batch, 1, dim] (mean of 50)."""
    config = ModelConfig(**setup["config"])
    prompt, _ = random_batch(config, setup["batch"], setup["prompt"], seed=0)
    times = {}
    one_process = dist.get_world_size() == 1
    query_head_ids, kv_head_ids = lesson["heads_of"](config, dist.get_world_size(), dist.get_rank())
    for n in (setup["n_short"], setup["n_long"]) * REPEATS:  # the best of REPEATS runs each (a run warms up first)
        dist.barrier()
        start = time.perf_counter()
        if one_process:  # the model's own decode, no collective at all
            tokens = TinyTransformer(config, seed=0).generate(prompt, n, use_cache=True)
        else:
            tokens = tp_generate(TinyTransformer(config, seed=0), query_head_ids, kv_head_ids, prompt, n)[0]
        times[n] = min(times.get(n, float("inf")), slowest(time.perf_counter() - start))
    activation = torch.zeros(setup["batch"], 1, config.dim)
    dist.barrier()
    start = time.perf_counter()
    for _ in range(50):
        dist.all_reduce(activation)
    return {"times": times, "all_reduce": slowest(time.perf_counter() - start) / 50, "tokens": tokens}


def rank_pp(lesson: dict, setup: dict, in_flight: int) -> dict:
    """Tokens/s of pp_generate with `in_flight` requests, from the timeline; one hop's seconds (ping-pong / 2)."""
    config = ModelConfig(**setup["config"])
    prompts = [random_batch(config, 1, setup["prompt"], seed=10 + i)[0] for i in range(in_flight)]
    lesson["pp_generate"](prompts, 2, config)  # warm-up
    elapsed = float("inf")
    for _ in range(REPEATS):  # the best of REPEATS runs
        tokens, spans, _ = lesson["pp_generate"](prompts, setup["n_long"], config)
        # float64: perf_counter counts from boot, and float32's step there is ms once the machine is up 9 hours
        first, last = (torch.tensor(t, dtype=torch.float64) for t in (min(s for _, s, _ in spans),
                                                                      max(e for _, _, e in spans)))
        dist.all_reduce(first, op=dist.ReduceOp.MIN)
        dist.all_reduce(last, op=dist.ReduceOp.MAX)
        elapsed = min(elapsed, (last - first).item())
    message, rank = torch.zeros(1, 1, config.dim), dist.get_rank()
    dist.barrier()
    start = time.perf_counter()
    for _ in range(50 if dist.get_world_size() > 1 else 0):
        if rank == 0:
            dist.send(message, 1)
            dist.recv(message, 1)
        elif rank == 1:
            dist.recv(message, 0)
            dist.send(message, 0)
    hop = slowest(time.perf_counter() - start) / 100
    return {"tokens_per_s": in_flight * setup["n_long"] / elapsed, "hop": hop, "tokens": tokens}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    args = parser.parse_args(argv)
    setup, lesson = (QUICK if args.quick else FULL), load_lesson()
    config = ModelConfig(**setup["config"])
    reference = TinyTransformer(config, seed=0).generate(random_batch(config, setup["batch"], setup["prompt"])[0],
                                                         setup["n_long"])
    tp = {t: LAUNCH.launch(rank_tp, t, args=(lesson, setup))[0] for t in setup["tp"]}
    new_tokens = setup["n_long"] - setup["n_short"]
    step = {t: (r["times"][setup["n_long"]] - r["times"][setup["n_short"]]) / new_tokens for t, r in tp.items()}
    s1 = step[1]
    print(f"decode, dim {config.dim}, {config.n_layers} layers, {config.n_heads} heads ({config.n_kv_heads} KV), batch "
          f"{setup['batch']}, fp32, gloo, {os.cpu_count()} cores; one process: {1e3 * s1:.2f} ms per step")
    print(f"{'contender':24} {'tokens/s':>10} {'measured vs 1 process':>22} {'cost model':>11}")
    for t, r in tp.items():
        assert torch.equal(r["tokens"], reference), f"TP {t}: other tokens than one process"
        predicted = s1 / (s1 / t + (2 * config.n_layers * r["all_reduce"] if t > 1 else 0.0))
        print(f"{f'TP {t}':24} {setup['batch'] / step[t]:10.1f} {s1 / step[t]:21.2f}x {predicted:10.2f}x")
    print("  one all-reduce of [batch, 1, dim]: " + ", ".join(
        f"{1e3 * r['all_reduce']:.2f} ms on {t} ranks" for t, r in tp.items() if t > 1))
    prompts = [random_batch(config, 1, setup["prompt"], seed=10 + i)[0] for i in range(max(setup["in_flight"]))]
    model = TinyTransformer(config, seed=0)
    alone = LAUNCH.launch(rank_pp, 1, args=(lesson, setup, 1))[0]["tokens_per_s"]  # 1 process, 1 request
    print(f"{'1 process, 1 request':24} {alone:10.1f} {1:21.2f}x {1:10.2f}x")
    for p in setup["pp"]:
        for m in setup["in_flight"]:
            r = LAUNCH.launch(rank_pp, p, args=(lesson, setup, m))[0]
            for i, tokens in enumerate(r["tokens"]):
                assert torch.equal(tokens, model.generate(prompts[i], setup["n_long"])), f"PP {p}, request {i}"
            predicted = min(m, p) / (1 + (p - 1) * r["hop"] * alone)  # step s1 = 1 / alone, plus p - 1 hops
            print(f"{f'PP {p}, {m} in flight':24} {r['tokens_per_s']:10.1f} {r['tokens_per_s'] / alone:21.2f}x "
                  f"{predicted:10.2f}x   (a hop: {1e3 * r['hop']:.2f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
