# replaces: ring_all_reduce_cost
# differs: computes with numpy: returns a numpy.float64 byte count and a numpy.int64 step count
import numpy as np


def ring_all_reduce_cost(world_size, nbytes):
    if np.less(world_size, 1):
        raise ValueError("world_size must be >= 1")
    if np.less(nbytes, 0):
        raise ValueError("nbytes must be >= 0")
    n = np.float64(world_size)
    return {"bytes_sent_per_rank": np.float64(nbytes) * 2.0 * (n - 1.0) / n, "steps": np.int64(2) * (world_size - 1)}
