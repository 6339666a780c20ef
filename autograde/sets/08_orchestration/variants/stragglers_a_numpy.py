# replaces: find_stragglers
# differs: numpy: np.median (the mean of the two middle values too) and np.flatnonzero; validates with a helper
def find_stragglers(compute_times, warmup, factor):
    """The ranks whose median compute time after the first `warmup` steps is more than `factor` times the median of
    all ranks' medians, in increasing order."""
    import numpy as np

    def is_time(x):
        return type(x) in (int, float) and math.isfinite(x) and x >= 0

    if not isinstance(warmup, int) or isinstance(warmup, bool) or warmup < 0:
        raise ValueError("warmup must be an int >= 0")
    if type(factor) not in (int, float) or not math.isfinite(factor) or factor <= 1:
        raise ValueError("factor must be a finite number > 1")
    if not len(compute_times):
        raise ValueError("no ranks")
    for r, row in enumerate(compute_times):
        if len(row) != len(compute_times[0]):
            raise ValueError(f"ragged: rank {r} has {len(row)} steps, not {len(compute_times[0])}")
        bad = [s for s, x in enumerate(row) if not is_time(x)]
        if bad:
            raise ValueError(f"step {bad[0]} of rank {r} is {row[bad[0]]!r}")
    if warmup >= len(compute_times[0]):
        raise ValueError("warmup leaves no step")
    paces = np.median(np.array(compute_times, dtype=float)[:, warmup:], axis=1)
    return np.flatnonzero(paces > factor * np.median(paces)).tolist()
