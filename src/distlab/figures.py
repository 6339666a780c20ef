"""Figures for lessons 4-7, each a picture of something the lesson measures or asserts beside it.

    from distlab.figures import plot_causal_tiles, plot_mesh_groups, plot_bit_layouts, plot_roofline
    plot_causal_tiles(4)                                       # Lesson 4: who computes which causal tile (CP)
    plot_mesh_groups((2, 2, 2), ("dp", "pp", "tp"))            # Lesson 5: the groups of a DeviceMesh
    plot_bit_layouts({"fp32": (8, 23), "bf16": (8, 7)})        # Lesson 6: sign, exponent, mantissa bits
    plot_roofline(989e12, 3.35e12, {"decode, batch 1": 1.0})   # Lesson 7: attainable FLOP/s vs intensity

The data behind each figure is a function of its own (causal_tiles, mesh_groups, attainable_flops), so that a lesson
can assert it against what it measured and a test can check it without looking at pixels.
"""
from __future__ import annotations

import numpy as np


def causal_tiles(world_size: int, zigzag: bool) -> np.ndarray:
    """[2N, 2N] map of causal attention over 2N sequence chunks: entry (i, j) is the rank that computes the scores of
    query chunk i against key chunk j, -1 where nobody does. Contiguous: rank r holds chunks 2r and 2r+1 as one block
    of S/N tokens; zig-zag: chunks r and 2N-1-r (Llama Team 2024, The Llama 3 Herd of Models, §3.3.2).

    A rank computes a (query block, key block) pair whole unless every key comes after every query, as Lesson 4's
    ring does: so the contiguous layout also computes tile (2r, 2r+1), masked entirely (keys after queries) but
    inside its diagonal block. A kernel that skips masked tiles inside a block (FlashAttention does) saves it."""
    n = world_size
    owner, block = np.empty(2 * n, dtype=int), np.arange(2 * n) if zigzag else np.arange(2 * n) // 2
    for r in range(n):
        owner[[r, 2 * n - 1 - r] if zigzag else [2 * r, 2 * r + 1]] = r
    tiles = np.full((2 * n, 2 * n), -1)
    for i in range(2 * n):
        computed = block <= block[i] if not zigzag else np.arange(2 * n) <= i
        tiles[i, computed] = owner[i]
    return tiles


def plot_causal_tiles(world_size: int = 4):
    """Two panels, contiguous and zig-zag: the 2N x 2N (query chunk, key chunk) tiles coloured by the rank that
    computes each (white: skipped; hatched: all masked, computed because its block is computed whole), and in the
    title each rank's count of tiles: 4(r+1) against 2N+1 on every rank. Returns the Figure."""
    import matplotlib.pyplot as plt

    n = world_size
    fig, axes = plt.subplots(1, 2, figsize=(8, 4.3))
    for ax, zigzag in zip(axes, (False, True)):
        tiles = causal_tiles(n, zigzag)
        for i, j in zip(*np.nonzero(tiles >= 0)):
            masked = j > i
            ax.add_patch(plt.Rectangle((j, i), 1, 1, fc=f"C{tiles[i, j]}", ec="white", lw=1,
                                       alpha=0.45 if masked else 1.0, hatch="///" if masked else None))
        counts = [int((tiles == r).sum()) for r in range(n)]
        name = "zig-zag: chunks r and 2N-1-r" if zigzag else "contiguous: one block of S/N per rank"
        ax.set(xlim=(0, 2 * n), ylim=(2 * n, 0), aspect="equal", xticks=np.arange(2 * n) + 0.5,
               yticks=np.arange(2 * n) + 0.5, xticklabels=range(2 * n), yticklabels=range(2 * n),
               xlabel="key chunk", ylabel="query chunk", title=f"{name}\ntiles per rank: {counts}")
        ax.title.set_fontsize(9)
    handles = [plt.Rectangle((0, 0), 1, 1, fc=f"C{r}") for r in range(n)]
    handles.append(plt.Rectangle((0, 0), 1, 1, fc="white", ec="grey", hatch="///"))
    fig.legend(handles, [f"rank {r}" for r in range(n)] + ["all masked,\ncomputed"], loc="center right", fontsize=8)
    fig.tight_layout(rect=(0, 0, 0.86, 1))
    return fig


def mesh_groups(shape: tuple[int, ...]) -> list[list[tuple[int, ...]]]:
    """For each dimension of a mesh of `shape` laid out row-major (as init_device_mesh does): its groups, each the
    sorted global ranks that differ only in that dimension's coordinate, in order of their smallest rank."""
    ranks = np.arange(int(np.prod(shape))).reshape(shape)
    return [sorted(tuple(int(r) for r in line) for line in np.moveaxis(ranks, dim, -1).reshape(-1, shape[dim]))
            for dim in range(len(shape))]


def plot_mesh_groups(shape: tuple[int, int, int] = (2, 2, 2), names=("dp", "pp", "tp"), ranks_per_node=None):
    """One panel per mesh dimension: the d x p x t ranks (one block per index of the first dimension, the second
    dimension down, the third across), each coloured by its group along that panel's dimension; a dashed frame around
    each node's ranks if `ranks_per_node` is given. Returns the Figure."""
    import matplotlib.pyplot as plt

    d, p, t = shape
    ranks = np.arange(d * p * t).reshape(shape)
    fig, axes = plt.subplots(1, 3, figsize=(3.3 * 3, 0.9 * p + 1.3))
    for dim, (ax, groups) in enumerate(zip(axes, mesh_groups(shape))):
        colour = {r: g for g, group in enumerate(groups) for r in group}
        for (a, b, c), r in np.ndenumerate(ranks):
            x, y = a * (t + 0.6) + c, b
            ax.add_patch(plt.Rectangle((x, y), 0.9, 0.9, fc=f"C{colour[r]}", alpha=0.75, ec="black", lw=0.5))
            ax.text(x + 0.45, y + 0.45, str(r), ha="center", va="center", fontsize=9)
        if ranks_per_node:
            for node in range(d * p * t // ranks_per_node):
                cells = [(a * (t + 0.6) + c, b) for (a, b, c), r in np.ndenumerate(ranks)
                         if r // ranks_per_node == node]
                (x0, y0), (x1, y1) = np.min(cells, axis=0), np.max(cells, axis=0)
                ax.add_patch(plt.Rectangle((x0 - 0.08, y0 - 0.08), x1 - x0 + 1.06, y1 - y0 + 1.06, fill=False,
                                           ls="--", ec="grey", lw=1))
        ax.set(xlim=(-0.2, d * (t + 0.6) - 0.4), ylim=(p + 0.1, -0.5), aspect="equal",
               title=f"{names[dim]} groups: {len(groups)} groups of {shape[dim]}")
        ax.title.set_fontsize(9)
        for a in range(d):
            ax.text(a * (t + 0.6) + t / 2 - 0.05, -0.25, f"{names[0]} {a}", ha="center", fontsize=7, color="grey")
        ax.axis("off")
    fig.suptitle(f"mesh {names} = {shape}: {names[1]} down, {names[2]} across", fontsize=9)
    fig.tight_layout()
    return fig


def plot_bit_layouts(formats: dict[str, tuple[int, int]]):
    """One row per format {name: (exponent bits, mantissa bits)}: a box per bit, sign grey, exponent blue, mantissa
    orange, drawn to one scale so that widths compare. Returns the Figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 0.5 * len(formats) + 0.6))
    for row, (name, (e, m)) in enumerate(formats.items()):
        for bit, colour in enumerate(["lightgrey"] + ["tab:blue"] * e + ["tab:orange"] * m):  # sign, exponent, mantissa
            ax.add_patch(plt.Rectangle((bit, row), 0.95, 0.8, fc=colour, alpha=0.8, ec="white"))
        ax.text(-0.5, row + 0.4, name, ha="right", va="center", fontsize=9)
        ax.text(1 + e + m + 0.5, row + 0.4, f"1 + {e} + {m} = {1 + e + m} bits", va="center", fontsize=8)
    handles = [plt.Rectangle((0, 0), 1, 1, fc=c, alpha=0.8) for c in ("lightgrey", "tab:blue", "tab:orange")]
    ax.legend(handles, ["sign", "exponent (range)", "mantissa (precision)"], loc="lower right", fontsize=8, ncols=3,
              bbox_to_anchor=(1, 1))
    ax.set(xlim=(-5, 42), ylim=(len(formats), -0.2))
    ax.axis("off")
    fig.tight_layout()
    return fig


def attainable_flops(intensity, peak_flops: float, bandwidth: float):
    """The roofline (Williams, Waterman & Patterson 2009): min(peak FLOP/s, intensity FLOP/byte x bytes/s)."""
    return np.minimum(peak_flops, np.asarray(intensity, dtype=float) * bandwidth)


def plot_roofline(peak_flops: float, bandwidth: float, points: dict[str, float], title: str = ""):
    """Attainable FLOP/s against arithmetic intensity (log-log), the ridge at peak/bandwidth marked, and each of
    `points` {label: FLOP per byte} on the roof. Returns the Figure."""
    import matplotlib.pyplot as plt

    ridge = peak_flops / bandwidth
    lowest, highest = min([*points.values(), ridge]) / 4, max([*points.values(), ridge]) * 4
    intensity = np.geomspace(lowest, highest, 200)
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.plot(intensity, attainable_flops(intensity, peak_flops, bandwidth), "k-")
    ax.axvline(ridge, color="grey", ls=":")
    ax.text(ridge * 1.1, peak_flops / 30, f"ridge: {ridge:.0f} FLOP/B", color="grey", fontsize=8)
    for k, (label, x) in enumerate(points.items()):
        y = attainable_flops(x, peak_flops, bandwidth)
        ax.plot([x], [y], "o", color=f"C{k}", label=f"{label}: {x:g} FLOP/B, {y / peak_flops:.1%} of peak")
    ax.set(xscale="log", yscale="log", xlabel="arithmetic intensity (FLOP per byte read)",
           ylabel="attainable FLOP/s", title=title)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig
