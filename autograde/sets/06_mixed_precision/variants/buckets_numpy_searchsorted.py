# replaces: assign_buckets
# differs: finds each bucket's end with numpy (cumulative sums and searchsorted) instead of a loop over gradients;
#   returns lists of Python ints built from ranges
import numpy as np


def assign_buckets(param_nbytes, bucket_cap_bytes=25 * 2**20, first_bucket_bytes=2**20):
    sizes = np.asarray(param_nbytes, dtype=np.int64)
    if bucket_cap_bytes <= 0 or first_bucket_bytes <= 0 or (sizes <= 0).any():
        raise ValueError("bucket limits and gradient sizes must be positive")
    buckets, start, limit = [], 0, first_bucket_bytes
    while start < len(sizes):
        filled = np.cumsum(sizes[start:])
        end = start + int(np.searchsorted(filled, limit, side="left")) + 1  # the first gradient reaching the limit
        end = min(end, len(sizes))
        buckets.append(list(range(start, end)))
        start, limit = end, bucket_cap_bytes
    return buckets
