# replaces: zero_memory_per_gpu
# differs: numpy arithmetic: returns a numpy.float64 (a float subclass); numpy's isfinite in the validation
import numpy as np


def zero_memory_per_gpu(n_params, dp_size, stage, k=12):
    if stage not in (0, 1, 2, 3):
        raise ValueError(f"stage {stage} is not a ZeRO stage (0-3)")
    if not (np.isfinite(n_params) and n_params > 0) or not dp_size > 0:
        raise ValueError(f"need n_params > 0 and dp_size > 0, got {n_params}, {dp_size}")
    if np.less(k, 0):
        raise ValueError(f"negative k: {k}")
    divisors = np.where(np.array([3, 2, 1]) <= stage, np.float64(dp_size), 1.0)  # parameters, gradients, states
    return np.sum(np.array([2.0, 2.0, k], dtype=np.float64) * np.float64(n_params) / divisors)
