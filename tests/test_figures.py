"""distlab.figures: the data behind each figure is right (the ring's steps, who computes each causal tile, the roof),
and each figure draws the panels and boxes it promises.

    pytest tests/test_figures.py
"""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from distlab.figures import (attainable_flops, causal_tiles, plot_bit_layouts, plot_causal_tiles, plot_mesh_groups,
                             plot_ring_all_reduce, plot_roofline, plot_tp_layer, plot_zero_partition, ring_schedule)


def _rectangles(ax):
    return [p for p in ax.patches if isinstance(p, matplotlib.patches.Rectangle)]


def _contiguous(n):
    return [[r] for r in range(n)]


def _zigzag(n):
    return [[r, 2 * n - 1 - r] for r in range(n)]


@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_causal_tiles_give_rank_r_4r_plus_4_tiles_contiguous_and_2n_plus_1_zigzag(n):
    contiguous, zigzag = causal_tiles(_contiguous(n), 2 * n), causal_tiles(_zigzag(n), 2 * n)
    assert [(contiguous == r).sum() for r in range(n)] == [4 * (r + 1) for r in range(n)]  # r+1 blocks of 4 tiles
    assert [(zigzag == r).sum() for r in range(n)] == [2 * n + 1] * n
    above = np.triu(np.ones((2 * n, 2 * n), bool), k=1)
    assert np.array_equal(zigzag < 0, above)  # zig-zag: exactly the causal tiles
    inside_diagonal_block = np.zeros_like(above)
    inside_diagonal_block[np.arange(0, 2 * n, 2), np.arange(1, 2 * n, 2)] = True  # tile (2r, 2r+1)
    assert np.array_equal(contiguous < 0, above & ~inside_diagonal_block)


def test_causal_tiles_refuses_a_layout_that_does_not_cover_the_sequence_once():
    with pytest.raises(ValueError, match="once each"):
        causal_tiles([[0, 1], [1, 2]], 4)
    with pytest.raises(ValueError, match="dividing grid"):
        causal_tiles([[0], [1], [2]], 4)


def test_plot_causal_tiles_draws_one_tile_per_computed_pair_in_one_panel_per_layout():
    fig = plot_causal_tiles({"contiguous": _contiguous(4), "zig-zag": _zigzag(4)}, 8)
    assert len(fig.axes) == 2
    assert [len(_rectangles(ax)) for ax in fig.axes] == [8 * 9 // 2 + 4, 8 * 9 // 2]  # + 4 masked tiles computed
    assert fig.axes[0].get_title().endswith("[4, 8, 12, 16]") and fig.axes[1].get_title().endswith("[9, 9, 9, 9]")
    plt.close(fig)


def test_plot_mesh_groups_colours_every_rank_once_per_dimension():
    ranks = np.arange(8).reshape(2, 2, 2)  # (dp, pp, tp), row-major as init_device_mesh lays it out
    groups = {dim: np.moveaxis(ranks, k, -1).reshape(-1, 2).tolist() for k, dim in enumerate(("dp", "pp", "tp"))}
    assert groups["tp"] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    fig = plot_mesh_groups((2, 2, 2), groups, ranks_per_node=4)
    assert [ax.get_title() for ax in fig.axes] == [f"{dim} groups: 4 groups of 2" for dim in ("dp", "pp", "tp")]
    assert [len(_rectangles(ax)) for ax in fig.axes] == [8 + 2] * 3   # 8 ranks and 2 node frames
    colours = [p.get_facecolor() for p in _rectangles(fig.axes[2])[:8]]
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


def test_plot_tp_layer_draws_the_layer_twice_with_sp_names_on_the_second_row():
    fig = plot_tp_layer()
    assert len(_rectangles(fig.axes[0])) == 2 * 14
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert [texts.count(name) for name in ("f\nid / AR", "g\nAR / id", "AG / RS", "RS / AG")] == [2, 2, 2, 2]
    plt.close(fig)


def test_ring_schedule_ends_reduce_scatter_with_one_full_chunk_per_rank_and_all_gather_with_all():
    steps = ring_schedule(4)
    assert [title for title, _, _ in steps] == ["start"] + [f"reduce-scatter {s}" for s in (1, 2, 3)] + [
        f"all-gather {s}" for s in (1, 2, 3)]
    after_reduce_scatter = steps[3][2]
    assert [row.index(4) for row in after_reduce_scatter] == [1, 2, 3, 0]  # rank r owns chunk r+1, complete
    assert all(row.count(4) == 1 for row in after_reduce_scatter)
    assert steps[-1][2] == [[4] * 4] * 4
    assert all(sorted(sends) == [0, 1, 2, 3] for _, sends, _ in steps[1:])  # each step, every chunk on one link


def test_plot_ring_all_reduce_draws_one_panel_per_step():
    fig = plot_ring_all_reduce(4)
    assert [ax.get_title() for ax in fig.axes] == [title for title, _, _ in ring_schedule(4)]
    plt.close(fig)


def test_plot_zero_partition_titles_give_each_stage_bytes_per_rank():
    fig = plot_zero_partition(4, k=12)
    assert [ax.get_title() for ax in fig.axes] == [f"stage {s}: {b:g}Ψ bytes per rank" for s, b in
                                                   enumerate((16, 4 + 12 / 4, 2 + 14 / 4, 16 / 4))]
    plt.close(fig)
