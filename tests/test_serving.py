"""distlab.serving: a day of requests (seeded Poisson arrivals, a daily cycle, shared prefixes) served by N replicas
behind a router; queueing, prefix caching and the summary numbers.

    pytest tests/test_serving.py
"""
import itertools

import numpy as np
import pytest

from distlab import serving
from distlab.serving import Request, ReplicaSpec


def test_a_day_of_requests_is_seeded_and_follows_the_daily_cycle():
    day = serving.day_of_requests(mean_rate=0.2, seed=1)
    assert day == serving.day_of_requests(mean_rate=0.2, seed=1)
    assert day != serving.day_of_requests(mean_rate=0.2, seed=2)
    arrivals = np.array([r.arrival for r in day])
    assert np.all(np.diff(arrivals) >= 0) and 0 <= arrivals[0] and arrivals[-1] < serving.DAY_S
    assert abs(len(day) / (0.2 * serving.DAY_S) - 1) < 0.05  # Poisson: 17,280 expected, sd ~131
    hours = np.bincount((arrivals // 3600).astype(int), minlength=24)
    assert hours[13:17].mean() > 2 * hours[1:5].mean()  # peak at 15:00, 3x the rate at 03:00
    assert all(r.prompt_tokens > r.prefix_tokens and r.output_tokens >= 1 for r in day)
    popularity = np.bincount([r.prefix for r in day])
    assert popularity[0] > 5 * popularity[50]  # Zipf: the most popular prefix far ahead


def requests(*specs):
    """Requests (arrival, prefix, output tokens) with 100-token prefixes and 10 tokens of their own."""
    return [Request(i, float(t), prefix, 100, 110, out) for i, (t, prefix, out) in enumerate(specs)]


SPEC = ReplicaSpec(max_batch=2, decode_step_s=0.1, prefill_s_per_token=0.01, cached_prefixes=1)


def test_times_queueing_and_prefix_hits_on_one_replica():
    day = requests((0, 0, 10), (0, 0, 10), (0, 1, 10), (5, 1, 1))
    result = serving.simulate(day, 1, lambda request, replicas: 0, SPEC)
    # 0: prefills 110 tokens (1.1 s), first token after one more step, 9 more steps; 1: waits for 0's prefill, then
    # 10 tokens only (prefix cached); 2: queued until 0 ends (slots: 2); 3: comes when all is done, prefix 1 cached by
    # request 2 (the cache holds one prefix: 0's was evicted)
    assert np.allclose(result["first_token"], [1.2, 1.1 + 0.1 + 0.1, 2.1 + 1.1 + 0.1, 5 + 0.1 + 0.1])
    assert np.allclose(result["start"], [0, 0, 2.1, 5])
    assert result["hit"].tolist() == [False, True, False, True]
    assert np.allclose(result["finish"] - result["first_token"], [0.9, 0.9, 0.9, 0.0])
    assert np.allclose(result["prefill_busy_s"], [(110 + 10 + 110 + 10) * 0.01])


def test_routers_see_outstanding_requests_and_cached_prefixes():
    seen = []

    def router(request, replicas):
        seen.append([(r.outstanding, r.has_prefix(0)) for r in replicas])
        return request.index % 2

    serving.simulate(requests((0, 0, 50), (0, 0, 50), (1, 0, 50)), 2, router, SPEC)
    assert seen == [[(0, False), (0, False)], [(1, True), (0, False)], [(1, True), (1, True)]]


def test_summary_percentiles_throughput_and_utilization():
    day = requests(*[(10.0 * i, i % 3, 20) for i in range(50)])
    turn = itertools.count()
    result = serving.simulate(day, 2, lambda request, replicas: next(turn) % 2, SPEC)
    summary = serving.summarize(result, duration_s=1000.0)
    latency = result["finish"] - result["arrival"]
    assert summary["p50_s"] == pytest.approx(np.percentile(latency, 50))
    assert summary["tokens_per_s"] == pytest.approx(50 * 20 / 1000)
    busy = (result["finish"] - result["start"]).sum()
    assert summary["utilization"] == pytest.approx(busy / (2 * 2 * 1000))
    assert set(summary) == {"p50_s", "p99_s", "ttft_p50_s", "ttft_p99_s", "tokens_per_s", "utilization",
                            "prefill_busy", "hit_rate"}
