# replaces: delayed_scale
# differs: numpy: the history as a float64 array, np.max (which returns NaN if any amax is NaN), np.isfinite, the cap
#   from np.finfo(np.float32); validates the history before the other arguments
import numpy as np


def delayed_scale(amax_history, fp8_max, margin=0, algo="max", previous_scale=1.0):
    history = np.asarray(amax_history, dtype=np.float64)
    if (history < 0).any():
        raise ValueError(f"amax_history: amaxes are non-negative, got {history.tolist()}")
    if not (np.isfinite(fp8_max) and fp8_max > 0):
        raise ValueError(f"fp8_max={fp8_max!r}: must be positive and finite")
    if not isinstance(margin, int) or isinstance(margin, bool) or margin < 0:
        raise ValueError(f"margin={margin!r}: must be a non-negative int")
    if algo not in {"max", "most_recent"}:
        raise ValueError(f"unknown algo {algo!r}")
    if history.size == 0:
        return previous_scale
    amax = history.max() if algo == "max" else history[-1]
    if not np.isfinite(amax) or amax == 0:
        return previous_scale
    scale = float(fp8_max / amax / np.float64(2) ** margin)
    return min(scale, float(np.finfo(np.float32).max))
