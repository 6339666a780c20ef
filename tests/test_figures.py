"""distlab.figures: the data behind each figure is right (who computes each causal tile, a mesh's groups, the roof),
and each figure draws the panels and boxes it promises.

    pytest tests/test_figures.py
"""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from distlab.figures import (attainable_flops, causal_tiles, mesh_groups, plot_bit_layouts, plot_causal_tiles,
                             plot_mesh_groups, plot_roofline)


def _rectangles(ax):
    return [p for p in ax.patches if isinstance(p, matplotlib.patches.Rectangle)]


@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_causal_tiles_give_rank_r_4r_plus_4_tiles_contiguous_and_2n_plus_1_zigzag(n):
    contiguous, zigzag = causal_tiles(n, False), causal_tiles(n, True)
    assert [(contiguous == r).sum() for r in range(n)] == [4 * (r + 1) for r in range(n)]  # r+1 blocks of 4 tiles
    assert [(zigzag == r).sum() for r in range(n)] == [2 * n + 1] * n
    above = np.triu(np.ones((2 * n, 2 * n), bool), k=1)
    assert np.array_equal(zigzag < 0, above)  # zig-zag: exactly the causal tiles
    assert np.array_equal(contiguous < 0, above & ~np.eye(2 * n, k=1, dtype=bool) | np.eye(2 * n, k=1, dtype=bool)
                          & (np.arange(2 * n) % 2 == 1)[:, None])  # + tile (2r, 2r+1) inside each diagonal block


def test_plot_causal_tiles_draws_one_tile_per_unmasked_chunk_pair_in_two_panels():
    fig = plot_causal_tiles(4)
    assert len(fig.axes) == 2
    assert [len(_rectangles(ax)) for ax in fig.axes] == [8 * 9 // 2 + 4, 8 * 9 // 2]  # + 4 masked tiles computed
    assert fig.axes[0].get_title().endswith("[4, 8, 12, 16]") and fig.axes[1].get_title().endswith("[9, 9, 9, 9]")
    plt.close(fig)


def test_mesh_groups_are_row_major_like_init_device_mesh():
    dp, pp, tp = mesh_groups((2, 2, 2))
    assert tp == [(0, 1), (2, 3), (4, 5), (6, 7)]   # consecutive ranks
    assert pp == [(0, 2), (1, 3), (4, 6), (5, 7)]   # a stride of t
    assert dp == [(0, 4), (1, 5), (2, 6), (3, 7)]   # a stride of p t
    for groups in mesh_groups((3, 2, 4)):           # each dimension's groups partition the ranks
        assert sorted(r for g in groups for r in g) == list(range(24))


def test_plot_mesh_groups_colours_every_rank_once_per_dimension():
    fig = plot_mesh_groups((2, 2, 2), ("dp", "pp", "tp"), ranks_per_node=4)
    assert [ax.get_title() for ax in fig.axes] == [f"{dim} groups: 4 groups of 2" for dim in ("dp", "pp", "tp")]
    assert [len(_rectangles(ax)) for ax in fig.axes] == [8 + 2] * 3   # 8 ranks and 2 node frames
    tp_ax = fig.axes[2]
    colours = [p.get_facecolor() for p in _rectangles(tp_ax)[:8]]
    assert colours[0] == colours[1] != colours[2]  # ranks 0 and 1 form a tp group, 2 is in the next
    plt.close(fig)


def test_plot_bit_layouts_draws_one_box_per_bit():
    formats = {"fp32": (8, 23), "bf16": (8, 7), "fp16": (5, 10), "e4m3": (4, 3), "e5m2": (5, 2)}
    fig = plot_bit_layouts(formats)
    assert len(_rectangles(fig.axes[0])) == 32 + 16 + 16 + 8 + 8
    plt.close(fig)


def test_roofline_is_bandwidth_bound_below_the_ridge_and_flat_above():
    peak, bandwidth = 989e12, 3.35e12
    ridge = peak / bandwidth
    assert attainable_flops(1.0, peak, bandwidth) == bandwidth
    assert attainable_flops([ridge / 2, ridge, 2 * ridge], peak, bandwidth) == pytest.approx([peak / 2, peak, peak])


def test_plot_roofline_marks_every_point_with_its_fraction_of_peak():
    fig = plot_roofline(989e12, 3.35e12, {"decode, batch 1": 1.0, "prefill, 4096 tokens": 4096.0})
    labels = [line.get_label() for line in fig.axes[0].get_lines() if not line.get_label().startswith("_")]
    assert labels == ["decode, batch 1: 1 FLOP/B, 0.3% of peak", "prefill, 4096 tokens: 4096 FLOP/B, 100.0% of peak"]
    plt.close(fig)
