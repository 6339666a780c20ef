# replaces: assign_buckets
# differs: recursive: the first bucket is cut off, and the rest are bucketed with the cap as their first limit
#   (indices shifted by the offset); tuples inside until the end
def _bucket(sizes, offset, first, cap):
    if not sizes:
        return ()
    filled = 0
    for k, size in enumerate(sizes):
        filled += size
        if filled >= first:
            return (tuple(range(offset, offset + k + 1)),) + _bucket(sizes[k + 1:], offset + k + 1, cap, cap)
    return (tuple(range(offset, offset + len(sizes))),)


def assign_buckets(param_nbytes, bucket_cap_bytes=25 * 2**20, first_bucket_bytes=2**20):
    sizes = list(param_nbytes)
    if not all(s > 0 for s in sizes) or not bucket_cap_bytes > 0 or not first_bucket_bytes > 0:
        raise ValueError("sizes and limits must all be > 0")
    return [list(b) for b in _bucket(sizes, 0, first_bucket_bytes, bucket_cap_bytes)]
