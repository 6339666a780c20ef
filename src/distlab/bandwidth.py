"""Time, fit and plot collective benchmarks: time and bus bandwidth against message size, and the α–β cost model.

    from distlab.bandwidth import fit_alpha_beta, bus_bandwidth, plot_bandwidth, time_all_reduces
    per_rank = distlab.launch(time_all_reduces, 4, args=({"gloo": dist.all_reduce}, 2**20, 5))  # on every rank
    alpha, beta = fit_alpha_beta(sizes, seconds)              # t ≈ alpha + beta * nbytes
    bus_bandwidth(64 * 2**20, 0.25, world_size=4)              # bytes/s, nccl-tests' definition
    plot_bandwidth(sizes, {"ring": seconds}, world_size=4, fits={"ring": (alpha, beta)})

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
