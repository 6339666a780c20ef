"""A day of requests against N model replicas: the event-driven simulator lesson 7 compares routers with.

    requests = distlab.serving.day_of_requests(mean_rate=1.0, seed=0)       # Poisson arrivals over 24 h
    spec = distlab.serving.ReplicaSpec(max_batch=8, decode_step_s=0.03, prefill_s_per_token=2e-4)
    result = distlab.serving.simulate(requests, n_replicas=4, router=my_router, spec=spec)
    distlab.serving.summarize(result)        # p50/p99 latency, time to first token, throughput, cache hits

A router is any `router(request, replicas) -> index`: it sees the `Request` (its arrival, its shared prefix) and each
`Replica`'s state (`outstanding` requests, `has_prefix(prefix)`), as a load balancer in front of serving engines does
(SGLang's router, Zheng et al. 2024, §4; vLLM's production stack). A replica runs up to `max_batch` requests at once
(continuous batching: a request joins as soon as a slot is free; Yu et al. 2022, *Orca*), queues the rest in arrival
order, and keeps the KV cache of its `cached_prefixes` most recently used prefixes (LRU): a request whose prefix it
holds only prefills the rest of its prompt (prefix caching; Kwon et al. 2023, *vLLM*, §4.4; SGLang's RadixAttention).
A request's time is its prefill (`prefill_s_per_token` per uncached prompt token; compute-bound, so a replica runs
one prefill at a time), then `decode_step_s` per output token; decode is memory-bound, so a step takes the same time
for 1 or `max_batch` sequences (lesson 7, section 1). What it leaves out, on purpose: a prefill slowing down the
other sequences' steps, memory limits beyond `max_batch`.
"""
from __future__ import annotations

import heapq
from collections import OrderedDict, deque
from dataclasses import dataclass

import numpy as np

__all__ = ["Request", "ReplicaSpec", "Replica", "day_of_requests", "simulate", "summarize"]

DAY_S = 24 * 3600.0


@dataclass(frozen=True)
class Request:
    """One request: when it arrives (s), which shared prefix its prompt starts with, and its sizes in tokens."""

    index: int
    arrival: float
    prefix: int
    prefix_tokens: int
    prompt_tokens: int  # the prefix included
    output_tokens: int


@dataclass(frozen=True)
class ReplicaSpec:
    """How fast one replica serves (seconds), how many requests it runs at once, how many prefixes it caches."""

    max_batch: int = 8
    decode_step_s: float = 0.03
    prefill_s_per_token: float = 2e-4
    cached_prefixes: int = 16


def day_of_requests(mean_rate: float, seed: int, *, duration_s: float = DAY_S, peak_to_trough: float = 3.0,
                    n_prefixes: int = 200, prefix_tokens: int = 2000, suffix_tokens: int = 200,
                    output_tokens: int = 250) -> list[Request]:
    """Poisson arrivals at `mean_rate` requests/s on average, with a daily cycle (the rate is `peak_to_trough` times
    higher at the peak, 15:00, than at 03:00), drawn by thinning (Lewis & Shedler 1979). Each prompt is one of
    `n_prefixes` shared prefixes (a system prompt, a document, a conversation so far; popularity ~ 1/rank, Zipf)
    then its own text; suffix and output lengths are log-normal (a heavy tail) with the given means."""
    rng = np.random.default_rng(seed)
    swing = (peak_to_trough - 1) / (peak_to_trough + 1)  # rate(t) = mean * (1 + swing * cos(...)) in [trough, peak]
    peak_rate = mean_rate * (1 + swing)
    times = np.cumsum(rng.exponential(1 / peak_rate, size=int(peak_rate * duration_s * 1.1) + 100))
    times = times[times < duration_s]
    rate = mean_rate * (1 + swing * np.cos(2 * np.pi * (times / DAY_S - 15 / 24)))
    times = times[rng.random(times.size) < rate / peak_rate]
    popularity = 1 / np.arange(1, n_prefixes + 1)
    prefixes = rng.choice(n_prefixes, size=times.size, p=popularity / popularity.sum())
    suffixes = _lognormal(rng, suffix_tokens, times.size)
    outputs = _lognormal(rng, output_tokens, times.size)
    return [Request(i, float(t), int(p), prefix_tokens, prefix_tokens + int(s), int(o))
            for i, (t, p, s, o) in enumerate(zip(times, prefixes, suffixes, outputs))]


def _lognormal(rng, mean: float, size: int, sigma: float = 1.0) -> np.ndarray:
    """Positive integers, log-normal with the given mean (median mean / e^(sigma^2 / 2))."""
    return np.maximum(1, np.round(rng.lognormal(np.log(mean) - sigma**2 / 2, sigma, size))).astype(int)


class Replica:
    """One replica's state, as a router sees it, and its queue and running requests."""

    def __init__(self, index: int, spec: ReplicaSpec):
        self.index, self.spec = index, spec
        self.running = 0
        self.prefill_free_at = self.prefill_busy_s = 0.0
        self.queue: deque[Request] = deque()
        self.prefixes: OrderedDict[int, None] = OrderedDict()  # least recently used first

    @property
    def outstanding(self) -> int:
        """Requests sent here and not finished: running plus queued."""
        return self.running + len(self.queue)

    def has_prefix(self, prefix: int) -> bool:
        return prefix in self.prefixes

    def start(self, request: Request, now: float) -> tuple[float, float, bool]:
        """Give `request` a slot at `now`; its prefill runs when the replica's previous prefill is done (prefill is
        compute-bound: one at a time, at full speed), then it decodes a token per step. Returns (time of its first
        token, time it finishes, whether its prefix was cached)."""
        hit = self.has_prefix(request.prefix)
        self.prefixes[request.prefix] = None
        self.prefixes.move_to_end(request.prefix)
        if len(self.prefixes) > self.spec.cached_prefixes:
            self.prefixes.popitem(last=False)
        prefill_tokens = request.prompt_tokens - (request.prefix_tokens if hit else 0)
        prefill_s = prefill_tokens * self.spec.prefill_s_per_token
        self.prefill_free_at = max(now, self.prefill_free_at) + prefill_s
        self.prefill_busy_s += prefill_s
        self.running += 1
        first_token = self.prefill_free_at + self.spec.decode_step_s
        return first_token, first_token + (request.output_tokens - 1) * self.spec.decode_step_s, hit


def simulate(requests: list[Request], n_replicas: int, router, spec: ReplicaSpec) -> dict[str, np.ndarray]:
    """Serve `requests` (in arrival order) on `n_replicas` replicas, each request sent where `router` says.
    Returns per request: `arrival`, `start`, `first_token`, `finish` (s), `replica`, `hit` (prefix cached),
    `output_tokens`; `slots`, the replicas' request slots in all (n_replicas * max_batch); `prefill_busy_s`, the
    seconds each replica spent prefilling."""
    replicas = [Replica(i, spec) for i in range(n_replicas)]
    served = [(0.0, 0.0, 0.0, 0, False)] * len(requests)  # (start, first token, finish, replica, hit) per request
    finishing: list[tuple[float, int, int]] = []  # (time, request index, replica): a heap

    def start(replica: Replica, request: Request, now: float) -> None:
        first, done, hit = replica.start(request, now)
        served[request.index] = (now, first, done, replica.index, hit)
        heapq.heappush(finishing, (done, request.index, replica.index))

    def finish_until(now: float) -> None:
        while finishing and finishing[0][0] <= now:
            done, _, index = heapq.heappop(finishing)
            replica = replicas[index]
            replica.running -= 1
            if replica.queue:
                start(replica, replica.queue.popleft(), done)

    for request in requests:
        finish_until(request.arrival)
        chosen = replicas[router(request, replicas)]
        if chosen.running < spec.max_batch:
            start(chosen, request, request.arrival)
        else:
            chosen.queue.append(request)
    finish_until(float("inf"))
    columns = list(zip(*served)) if served else [()] * 5
    names = ("start", "first_token", "finish", "replica", "hit")
    out = {name: np.array(column) for name, column in zip(names, columns)}
    out["arrival"] = np.array([r.arrival for r in requests])
    out["output_tokens"] = np.array([r.output_tokens for r in requests])
    out["slots"] = np.array(n_replicas * spec.max_batch)
    out["prefill_busy_s"] = np.array([replica.prefill_busy_s for replica in replicas])
    return out


def summarize(result: dict[str, np.ndarray], duration_s: float = DAY_S) -> dict[str, float]:
    """p50/p99 of the latency (arrival to last token) and of the time to first token, in seconds; throughput in
    output tokens per second over `duration_s` (tokens of requests finished by then); the fraction of the replicas'
    request slots busy over the day (`utilization`: throughput / utilization is what they could carry if always
    full); the fraction of the day the replicas spent prefilling (`prefill_busy`); the prefix-cache hit rate."""
    latency, ttft = result["finish"] - result["arrival"], result["first_token"] - result["arrival"]
    done = result["finish"] <= duration_s
    busy = np.minimum(result["finish"], duration_s) - np.minimum(result["start"], duration_s)
    return {"utilization": float(busy.sum() / (result["slots"] * duration_s)),
            "prefill_busy": float(result["prefill_busy_s"].mean() / duration_s),
            "p50_s": float(np.percentile(latency, 50)), "p99_s": float(np.percentile(latency, 99)),
            "ttft_p50_s": float(np.percentile(ttft, 50)), "ttft_p99_s": float(np.percentile(ttft, 99)),
            "tokens_per_s": float(result["output_tokens"][done].sum() / duration_s),
            "hit_rate": float(result["hit"].mean())}
