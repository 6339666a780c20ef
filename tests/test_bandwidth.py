"""distlab.bandwidth: the α–β fit recovers known parameters, bandwidths follow nccl-tests, the figure has its labels,
the timing harness times every implementation on every rank and refuses one that does not sum.

    pytest tests/test_bandwidth.py
"""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import torch.distributed as dist

import distlab
from distlab.bandwidth import (alg_bandwidth, bus_bandwidth, fit_alpha_beta, format_bytes, plot_bandwidth,
                               time_all_reduces)

SIZES = 2.0 ** np.arange(10, 27, 4)  # 1 KiB ... 64 MiB


def test_fit_recovers_alpha_beta_exactly_without_noise():
    alpha, beta = 50e-6, 1 / 2e9  # 50 µs, 2 GB/s
    fitted = fit_alpha_beta(SIZES, alpha + beta * SIZES)
    assert fitted == pytest.approx((alpha, beta), rel=1e-9)


def test_fit_is_close_with_multiplicative_noise():
    rng = np.random.default_rng(0)
    alpha, beta = 2e-3, 1 / 3e8
    times = (alpha + beta * SIZES) * rng.uniform(0.95, 1.05, SIZES.shape)
    fitted_alpha, fitted_beta = fit_alpha_beta(SIZES, times)
    assert fitted_alpha == pytest.approx(alpha, rel=0.15)
    assert fitted_beta == pytest.approx(beta, rel=0.15)


def test_fit_never_returns_negative_parameters():
    alpha, beta = fit_alpha_beta([1e3, 1e6, 1e7], [1.0, 0.9, 0.8])  # time falling with size: no bandwidth term
    assert alpha > 0 and beta == 0
    alpha, beta = fit_alpha_beta([1e3, 1e6], [1e-9, 1e-3])  # a pure bandwidth line with a tiny negative offset
    assert alpha >= 0 and beta > 0


def test_fit_rejects_bad_input():
    with pytest.raises(ValueError):
        fit_alpha_beta([1, 2, 3], [1, 2])
    with pytest.raises(ValueError):
        fit_alpha_beta([1], [1])
    with pytest.raises(ValueError):
        fit_alpha_beta([1, 2], [0, 1])


def test_bus_bandwidth_follows_nccl_tests():
    assert alg_bandwidth(1e9, 2.0) == 5e8
    assert bus_bandwidth(1e9, 2.0, world_size=4) == pytest.approx(5e8 * 2 * 3 / 4)
    assert bus_bandwidth(1e9, 2.0, world_size=4, collective="all_gather") == pytest.approx(5e8 * 3 / 4)
    assert bus_bandwidth(1e9, 2.0, world_size=8, collective="broadcast") == pytest.approx(5e8)
    assert bus_bandwidth(1e9, 1.0, world_size=1) == 0  # one rank moves nothing
    np.testing.assert_allclose(bus_bandwidth(SIZES, SIZES / 1e9, 2), 1e9)  # arrays in, array out
    with pytest.raises(ValueError):
        bus_bandwidth(1, 1, 4, collective="all_to_everyone")


def test_format_bytes():
    assert [format_bytes(x) for x in (512, 1024, 3 * 2**20, 64 * 2**20, 2**40)] == [
        "512 B", "1 KiB", "3 MiB", "64 MiB", "1.02e+03 GiB"]


def test_plot_bandwidth_has_both_panels_labelled():
    times = {"ring": 1e-3 + SIZES / 1e9, "naive": 1e-3 + 3 * SIZES / 1e9}
    fig = plot_bandwidth(SIZES, times, world_size=4, fits={"ring": fit_alpha_beta(SIZES, times["ring"])})
    time_ax, bw_ax = fig.axes
    assert "ms" in time_ax.get_ylabel() and "GB/s" in bw_ax.get_ylabel()
    assert time_ax.get_xlabel() and bw_ax.get_xlabel()
    assert len(time_ax.lines) == 3 and len(bw_ax.lines) == 2  # 2 measured lines + 1 fit; 2 bandwidth lines
    matplotlib.pyplot.close(fig)


def _in_place_sum(tensor):
    dist.all_reduce(tensor)


def _forgets_to_sum(tensor):
    pass


def test_time_all_reduces_gives_every_rank_one_time_per_repeat_of_each_implementation():
    per_rank = distlab.launch(time_all_reduces, 2, args=({"gloo": dist.all_reduce, "mine": _in_place_sum}, 1000, 3),
                              timeout=60, collective_timeout=20)
    assert len(per_rank) == 2
    for seconds in per_rank:  # the warm-up round is not timed
        assert list(seconds) == ["gloo", "mine"] and all(len(ts) == 3 and min(ts) > 0 for ts in seconds.values())


def test_time_all_reduces_refuses_an_implementation_that_does_not_sum():
    with pytest.raises(distlab.RankFailed, match="did not sum the tensor in place"):
        distlab.launch(time_all_reduces, 2, args=({"broken": _forgets_to_sum}, 10, 1, 0), timeout=60,
                       collective_timeout=20)
