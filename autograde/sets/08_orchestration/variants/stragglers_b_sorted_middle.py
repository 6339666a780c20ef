# replaces: find_stragglers
# differs: its own median from the sorted values; a list comprehension filtered with a generator; the checks in
#   another order
def find_stragglers(compute_times, warmup, factor):
    """The ranks whose median compute time after the first `warmup` steps is more than `factor` times the median of
    all ranks' medians, in increasing order."""
    def median(values):
        ordered, n = sorted(values), len(values)
        return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2

    if len(compute_times) < 1:
        raise ValueError("compute_times is empty: no ranks")
    width = len(compute_times[0])
    for rank in range(len(compute_times)):
        if len(compute_times[rank]) != width:
            raise ValueError(f"rank {rank}: {len(compute_times[rank])} times where rank 0 has {width}")
        for step in range(width):
            t = compute_times[rank][step]
            if isinstance(t, bool) or not isinstance(t, (int, float)) or t != t or t in (math.inf, -math.inf) or t < 0:
                raise ValueError(f"rank {rank}, step {step}: bad time {t!r}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or not 0 <= warmup < width:
        raise ValueError(f"warmup {warmup!r} must be an int in [0, {width})")
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not (factor > 1 and factor != math.inf):
        raise ValueError(f"factor {factor!r} must be finite and > 1")
    paces = [median(row[warmup:]) for row in compute_times]
    limit = factor * median(paces)
    return [rank for rank, pace in enumerate(paces) if pace > limit]
