"""Time, fit and plot collective benchmarks: time and bus bandwidth against message size, and the α–β cost model.

    from distlab.plot import fit_alpha_beta, bus_bandwidth, plot_bandwidth, time_all_reduces
    per_rank = distlab.launch(time_all_reduces, 4, args=({"gloo": dist.all_reduce}, 2**20, 5))  # on every rank
    alpha, beta = fit_alpha_beta(sizes, seconds)              # t ≈ alpha + beta * nbytes
    bus_bandwidth(64 * 2**20, 0.25, world_size=4)              # bytes/s, nccl-tests' definition
    plot_bandwidth(sizes, {"ring": seconds}, world_size=4, fits={"ring": (alpha, beta)})
    plot_ring_all_reduce(4); plot_zero_partition(4, k=12)     # the ring's steps (Lesson 1), ZeRO's partition (Lesson 2)

Bus bandwidth follows nccl-tests (doc/PERFORMANCE.md): algbw = S / t, busbw = algbw * factor, the factor making the
number comparable to the hardware's link bandwidth, whatever the number of ranks.
"""
from __future__ import annotations

import numpy as np

# nccl-tests' busbw factor per collective, as a function of the number of ranks n (S = the largest buffer's bytes)
BUS_FACTOR = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
}


def format_bytes(nbytes: float) -> str:
    """A size in binary units, as axis labels and tables show it: 1024 -> '1 KiB', 3 * 2**20 -> '3 MiB'."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(nbytes) < 1024 or unit == "GiB":
            return f"{nbytes:.3g} {unit}"
        nbytes /= 1024
    raise AssertionError("unreachable")


def alg_bandwidth(nbytes, seconds):
    """Algorithm bandwidth in bytes/s: the message size divided by the time the collective took (S / t)."""
    return np.asarray(nbytes, dtype=float) / np.asarray(seconds, dtype=float)


def bus_bandwidth(nbytes, seconds, world_size: int, collective: str = "all_reduce"):
    """Bus bandwidth in bytes/s (nccl-tests): algbw times a per-collective factor, 2(n-1)/n for all-reduce.

    It is the rate at which each rank's busiest link moved data, if the collective used an optimal algorithm: a
    ring all-reduce sends 2(n-1)/n * S per rank, so busbw = that / t. Comparable across n and to link speeds.
    """
    if collective not in BUS_FACTOR:
        raise ValueError(f"unknown collective {collective!r}; one of {sorted(BUS_FACTOR)}")
    if world_size < 1:
        raise ValueError(f"world_size must be >= 1, got {world_size}")
    return alg_bandwidth(nbytes, seconds) * BUS_FACTOR[collective](world_size)


def time_all_reduces(impls: dict, numel: int, repeats: int, warmup: int = 1) -> dict[str, list[float]]:
    """On one rank (every rank calls it): each all-reduce's seconds per repeat, after `warmup` untimed rounds.

    impls: {name: fn(tensor)} summing a float32 tensor of `numel` elements in place over the default group. Every
    repeat refills the tensor with rank + 1, starts after a barrier (time the collective, not who arrived late) and
    checks the sum; implementations alternate repeat by repeat, so that a change in the machine's load hits all alike.
    A collective's time is the slowest rank's: take the max over ranks of each repeat (nccl-tests' `-a 3`).
    """
    import time

    import torch
    import torch.distributed as dist

    tensor = torch.empty(numel)
    world_size = dist.get_world_size()
    seconds = {name: [] for name in impls}
    for i in range(warmup + repeats):
        for name, all_reduce in impls.items():
            tensor.fill_(dist.get_rank() + 1)  # fresh values each time: summing sums would overflow to inf
            dist.barrier()
            start = time.perf_counter()
            all_reduce(tensor)
            if i >= warmup:
                seconds[name].append(time.perf_counter() - start)
            if not torch.all(tensor == world_size * (world_size + 1) / 2):
                raise AssertionError(f"{name} did not sum the tensor in place")
    return seconds


def fit_alpha_beta(sizes_bytes, seconds) -> tuple[float, float]:
    """Fit the latency–bandwidth model t ≈ alpha + beta * S; return (alpha in s, beta in s/byte), both >= 0.

    Least squares on the *relative* error (each point weighted by 1/t), so that microsecond-scale small messages
    count as much as second-scale large ones: alpha comes from the small sizes, beta from the large ones.
    """
    s = np.asarray(sizes_bytes, dtype=float)
    t = np.asarray(seconds, dtype=float)
    if s.shape != t.shape or s.ndim != 1 or len(s) < 2:
        raise ValueError("fit_alpha_beta needs two 1-D arrays of the same length, at least 2 points")
    if np.any(t <= 0) or np.any(s < 0):
        raise ValueError("times must be > 0 and sizes >= 0")
    design = np.stack([1 / t, s / t], axis=1)  # (alpha + beta*s) / t ≈ 1
    (alpha, beta), *_ = np.linalg.lstsq(design, np.ones_like(t), rcond=None)
    if alpha < 0:  # constrained refit, one parameter at a time
        alpha, beta = 0.0, float(np.sum(s / t) / np.sum((s / t) ** 2))
    elif beta < 0:
        alpha, beta = float(np.sum(1 / t) / np.sum(1 / t**2)), 0.0
    return float(alpha), float(beta)


def plot_bandwidth(sizes_bytes, seconds: dict, world_size: int, *, fits: dict | None = None,
                   collective: str = "all_reduce", title: str | None = None):
    """Two panels against message size: time (log-log, with each fitted α–β line dashed) and bus bandwidth.

    seconds: {label: times, one per size}; fits: {label: (alpha, beta)} to draw. Returns the matplotlib Figure.
    """
    import matplotlib.pyplot as plt

    sizes = np.asarray(sizes_bytes, dtype=float)
    fig, (ax_t, ax_bw) = plt.subplots(1, 2, figsize=(11, 4))
    smooth = np.geomspace(sizes.min(), sizes.max(), 100)
    for i, (label, times) in enumerate(seconds.items()):
        color = f"C{i}"
        times = np.asarray(times, dtype=float)
        ax_t.plot(sizes, times * 1e3, "o-", color=color, label=label)
        if fits and label in fits:
            alpha, beta = fits[label]
            ax_t.plot(smooth, (alpha + beta * smooth) * 1e3, "--", color=color, alpha=0.7,
                      label=f"fit: α={alpha * 1e3:.2g} ms, 1/β={1 / beta / 1e9 if beta else float('inf'):.2g} GB/s")
        ax_bw.plot(sizes, bus_bandwidth(sizes, times, world_size, collective) / 1e9, "o-", color=color, label=label)
    for ax in (ax_t, ax_bw):
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes, [format_bytes(x) for x in sizes])
        ax.set_xlabel("message size S per rank")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    ax_t.set_yscale("log")
    ax_t.set_ylabel("time per collective (ms, log scale)")
    ax_t.set_title("time: t ≈ α + β·S")
    ax_bw.set_ylabel("bus bandwidth (GB/s)")
    ax_bw.set_title(f"busbw = S/t · {'2(N−1)/N' if collective == 'all_reduce' else 'factor'}, N = {world_size}")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def ring_schedule(world_size: int) -> list[tuple[str, list[int], list[list[int]]]]:
    """The ring all-reduce step by step: (phase, chunk each rank r sends to r+1, after the step: how many ranks'
    contributions rank r's copy of each chunk holds). Rank r sends chunk r - s in reduce-scatter step s, r + 1 - s in
    all-gather step s (Lesson 1's simulation; Patarasuk & Yuan 2009)."""
    n = world_size
    holds = [[1] * n for _ in range(n)]
    steps = [("start", [], [row[:] for row in holds])]
    for phase, first in (("reduce-scatter", 0), ("all-gather", 1)):
        for step in range(n - 1):
            sends = [(r + first - step) % n for r in range(n)]
            sent = [holds[r][c] for r, c in enumerate(sends)]  # every rank sends at once
            for r, c in enumerate(sends):
                dst = (r + 1) % n
                holds[dst][c] = holds[dst][c] + sent[r] if phase == "reduce-scatter" else sent[r]
            steps.append((f"{phase} {step + 1}", sends, [row[:] for row in holds]))
    return steps


def plot_ring_all_reduce(world_size: int = 4):
    """One panel per step of a ring all-reduce: the ranks on a circle, an arrow r → r+1 labelled with the chunk it
    carries, and under each rank its N chunks, darker the more ranks' contributions they hold (black: the full sum).
    Returns the matplotlib Figure."""
    import matplotlib.pyplot as plt

    n, steps = world_size, ring_schedule(world_size)
    fig, axes = plt.subplots(1, len(steps), figsize=(2.2 * len(steps), 2.6))
    angle = np.pi / 2 - 2 * np.pi * np.arange(n) / n  # rank 0 at the top, clockwise
    xy = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    for ax, (title, sends, holds) in zip(axes, steps):
        for r in range(n):
            ax.text(*xy[r] * 1.0, f"r{r}", ha="center", va="center", fontsize=9,
                    bbox={"boxstyle": "circle", "fc": "white", "ec": "gray"})
            x0, y0 = xy[r] * (1.65, 1.55) - (0.09 * n, 0.07)  # its chunks, outside the circle
            for c in range(n):
                ax.add_patch(plt.Rectangle((x0 + 0.18 * c, y0), 0.16, 0.16, ec="gray", lw=0.5,
                                           fc=plt.cm.Greys((holds[r][c] - 1) / max(n - 1, 1))))
        for r, c in enumerate(sends):
            a, b = xy[r] * 0.8, xy[(r + 1) % n] * 0.8
            ax.annotate("", b, a, arrowprops={"arrowstyle": "->", "color": f"C{c}"})
            ax.text(*((a + b) / 2 * 1.25), f"c{c}", color=f"C{c}", ha="center", va="center", fontsize=8)
        ax.set(xlim=(-2.15, 2.15), ylim=(-2.0, 2.0), aspect="equal", title=title)
        ax.title.set_fontsize(9)
        ax.axis("off")
    fig.tight_layout()
    return fig


def plot_zero_partition(world_size: int = 4, k: int = 12):
    """ZeRO's partition (Rajbhandari et al. 2020, Figure 1): for stages 0-3, one row per rank, its bf16 parameters
    (2Ψ bytes), bf16 gradients (2Ψ) and optimizer states (KΨ) each cut into N shards: a coloured shard is held by
    that rank, a blank one is not. Widths are to scale. Returns the matplotlib Figure."""
    import matplotlib.pyplot as plt

    n, parts = world_size, (("parameters", 2), ("gradients", 2), ("optimizer states", k))
    fig, axes = plt.subplots(1, 4, figsize=(13, 0.45 * n + 1.2), sharey=True)
    for stage, ax in enumerate(axes):
        x = 0.0
        for p, (name, width) in enumerate(parts):
            sharded = stage >= (3, 2, 1)[p]  # parameters from stage 3, gradients from 2, optimizer states from 1
            for r in range(n):
                for shard in range(n):
                    held = not sharded or shard == r
                    ax.add_patch(plt.Rectangle((x + shard * width / n, r), width / n, 0.8, lw=0.3, ec="gray",
                                               fc=f"C{p}" if held else "white", alpha=0.35 + 0.65 * (shard == r)))
            ax.text(x + width / 2, n + 0.1, name if width > 2 else name[:5] + ".", ha="center", fontsize=7)
            x += width
        held_bytes = sum(w / (n if stage >= (3, 2, 1)[p] else 1) for p, (_, w) in enumerate(parts))
        ax.set(xlim=(0, x), ylim=(n + 0.6, -0.2), xticks=[], yticks=np.arange(n) + 0.4,
               yticklabels=[f"rank {r}" for r in range(n)], title=f"stage {stage}: {held_bytes:g}Ψ bytes per rank")
        ax.title.set_fontsize(9)
    fig.tight_layout()
    return fig
