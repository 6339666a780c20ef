"""Figures for the lessons, each a picture of something the lesson measures or asserts beside it.

    from distlab.figures import plot_ring_all_reduce, plot_zero_partition, plot_causal_tiles, plot_roofline
    plot_ring_all_reduce(4)                                    # Lesson 1: the ring's steps (ring_schedule)
    plot_zero_partition(4, k=12)                               # Lesson 2: ZeRO's partition, bytes per rank
    plot_causal_tiles({"zig-zag": [[0, 3], [1, 2]]}, grid=4)   # Lesson 4: who computes which causal tile (CP)
    plot_mesh_groups((2, 1, 2), {"dp": [[0, 2], [1, 3]], "pp": [[0], [1], [2], [3]], "tp": [[0, 1], [2, 3]]})
    plot_bit_layouts({"fp32": (8, 23), "bf16": (8, 7)})        # Lesson 6: sign, exponent, mantissa bits
    plot_roofline(989e12, 3.35e12, {"decode, batch 1": 1.0})   # Lesson 7: attainable FLOP/s vs intensity

The data behind a figure is a function of its own (ring_schedule, causal_tiles, attainable_flops) or comes from the
lesson (a mesh's groups, read from a real DeviceMesh), so that a lesson can assert it against what it measured and a
test can check it without pixels. Nothing here computes what an exercise asks for (the zig-zag layout, a mesh's groups).
"""
from __future__ import annotations

import numpy as np


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


def causal_tiles(layout: list[list[int]], grid: int) -> np.ndarray:
    """[grid, grid] map of causal attention: entry (i, j) is the rank that computes the scores of query tile i against
    key tile j, -1 where nobody does. `layout`: each rank's blocks of the sequence, numbered in sequence order out of
    C blocks in all (C dividing grid), e.g. [[0, 3], [1, 2]] for two ranks zig-zagged over 4 blocks.

    A rank computes a (query block, key block) pair whole unless the key block comes after the query block, as Lesson
    4's ring does; so a block of several tiles also computes the tiles above the diagonal inside it, all masked. A
    kernel that skips masked tiles inside a block (FlashAttention does) saves those."""
    n_blocks = sum(len(blocks) for blocks in layout)
    if grid % n_blocks or sorted(b for blocks in layout for b in blocks) != list(range(n_blocks)):
        raise ValueError(f"layout {layout} must number its blocks 0..C-1 once each, C dividing grid={grid}")
    block = np.arange(grid) // (grid // n_blocks)  # the block each tile lies in
    owner = {b: r for r, blocks in enumerate(layout) for b in blocks}
    tiles = np.full((grid, grid), -1)
    for i in range(grid):
        tiles[i, block <= block[i]] = owner[block[i]]
    return tiles


def plot_causal_tiles(layouts: dict[str, list[list[int]]], grid: int):
    """One panel per {name: layout} (see causal_tiles): the grid x grid (query, key) tiles coloured by the rank that
    computes each (white: skipped; hatched: all masked, computed because its block is computed whole), and in the
    title each rank's count of tiles. Returns the Figure."""
    import matplotlib.pyplot as plt

    n = max(len(layout) for layout in layouts.values())
    fig, axes = plt.subplots(1, len(layouts), figsize=(4 * len(layouts), 4.3), squeeze=False)
    for ax, (name, layout) in zip(axes[0], layouts.items()):
        tiles = causal_tiles(layout, grid)
        for i, j in zip(*np.nonzero(tiles >= 0)):
            masked = j > i
            ax.add_patch(plt.Rectangle((j, i), 1, 1, fc=f"C{tiles[i, j]}", ec="white", lw=1,
                                       alpha=0.45 if masked else 1.0, hatch="///" if masked else None))
        counts = [int((tiles == r).sum()) for r in range(len(layout))]
        ax.set(xlim=(0, grid), ylim=(grid, 0), aspect="equal", xticks=np.arange(grid) + 0.5,
               yticks=np.arange(grid) + 0.5, xticklabels=range(grid), yticklabels=range(grid),
               xlabel="key tile", ylabel="query tile", title=f"{name}: {layout}\ntiles per rank: {counts}")
        ax.title.set_fontsize(9)
    handles = [plt.Rectangle((0, 0), 1, 1, fc=f"C{r}") for r in range(n)]
    handles.append(plt.Rectangle((0, 0), 1, 1, fc="white", ec="grey", hatch="///"))
    fig.legend(handles, [f"rank {r}" for r in range(n)] + ["all masked,\ncomputed"], loc="center right", fontsize=8)
    fig.tight_layout(rect=(0, 0, 0.86, 1))
    return fig


def plot_mesh_groups(shape: tuple[int, int, int], groups: dict[str, list], ranks_per_node=None):
    """One panel per mesh dimension {name: its groups, each a list of global ranks} (read from a real DeviceMesh):
    the ranks laid out row-major as init_device_mesh does (one block per index of the first dimension, the second
    down, the third across), each coloured by its group along that panel's dimension; a dashed frame around each
    node's ranks if `ranks_per_node` is given. Returns the Figure."""
    import matplotlib.pyplot as plt

    d, p, t = shape
    ranks = np.arange(d * p * t).reshape(shape)
    fig, axes = plt.subplots(1, 3, figsize=(3.3 * 3, 0.9 * p + 1.3))
    names = list(groups)
    for dim, ax in enumerate(axes):
        colour = {r: g for g, group in enumerate(groups[names[dim]]) for r in group}
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
               title=f"{names[dim]} groups: {len(groups[names[dim]])} groups of {shape[dim]}")
        ax.title.set_fontsize(9)
        for a in range(d):
            ax.text(a * (t + 0.6) + t / 2 - 0.05, -0.25, f"{names[0]} {a}", ha="center", fontsize=7, color="grey")
        ax.axis("off")
    fig.suptitle(f"mesh {tuple(names)} = {shape}: {names[1]} down, {names[2]} across", fontsize=9)
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


TP_LAYER = [("LayerNorm", "outside"), ("f", "comm"), ("Q, K, V\ncolumn", "tp"), ("attention\nby heads", "tp"),
            ("O\nrow", "tp"), ("g", "comm"), ("dropout\n+ residual", "outside"), ("LayerNorm", "outside"),
            ("f", "comm"), ("MLP up\ncolumn", "tp"), ("GeLU", "tp"), ("MLP down\nrow", "tp"), ("g", "comm"),
            ("dropout\n+ residual", "outside")]
TP_NAMES = {"f": "f\nid / AR", "g": "g\nAR / id"}  # forward / backward: identity, all-reduce
SP_NAMES = {"f": "AG / RS", "g": "RS / AG"}  # all-gather, reduce-scatter; Korthikanti et al. 2022, Fig. 5: g, g-bar


def plot_tp_layer():
    """One Transformer layer as a row of boxes, twice: Megatron TP (Shoeybi et al. 2019, Fig. 3: f, g) and TP with
    sequence parallelism (Korthikanti et al. 2022, Fig. 5: AG/RS, RS/AG). Blue: split across the t ranks by heads or
    features; grey: the whole [b, s, h] on every rank; green: split by sequence; orange: communication, its forward
    / backward collective named. Returns the Figure."""
    import matplotlib.pyplot as plt

    colours = {"tp": "tab:blue", "outside": "lightgrey", "sequence": "tab:green", "comm": "tab:orange"}
    fig, ax = plt.subplots(figsize=(13, 2.6))
    for row, sp in enumerate((False, True)):
        y = -1.3 * row
        for k, (name, region) in enumerate(TP_LAYER):
            comm = region == "comm"
            label = (SP_NAMES if sp else TP_NAMES)[name] if comm else name
            region = "sequence" if sp and region == "outside" else region
            x, width = k * 1.0, 0.9
            ax.add_patch(plt.Rectangle((x, y), width, 0.8, fc=colours[region], alpha=0.9 if comm else 0.45,
                                       ec="black", lw=0.5))
            ax.text(x + width / 2, y + 0.4, label, ha="center", va="center", fontsize=7 if "\n" in label else 8)
            if k:
                ax.annotate("", (x, y + 0.4), (x - 0.1, y + 0.4), arrowprops={"arrowstyle": "->", "lw": 0.6})
        ax.text(-0.2, y + 0.4, "TP + SP" if sp else "TP", ha="right", va="center", fontsize=9)
    handles = [plt.Rectangle((0, 0), 1, 1, fc=c, alpha=0.6) for c in colours.values()]
    ax.legend(handles, ["split by heads / features", "whole on every rank", "split by sequence",
                        "communication (forward / backward)"], ncols=4, fontsize=8, loc="lower center",
              bbox_to_anchor=(0.5, 1.0))
    ax.set(xlim=(-1.4, len(TP_LAYER)), ylim=(-1.4, 0.9))
    ax.axis("off")
    fig.tight_layout()
    return fig
