# replaces: assign_buckets
# wrong: fills the buckets from the end of the list (forward order) instead of in gradient-ready order
# must-lose: assign_buckets_examples, assign_buckets_matches_ddp
# must-keep: assign_buckets_rejects_bad_input
def assign_buckets(param_nbytes, bucket_cap_bytes=25 * 2**20, first_bucket_bytes=2**20):
    """DDP's buckets (Li et al. 2020, §3.2.3): lists of indices into `param_nbytes`, given in gradient-ready order."""
    if not (bucket_cap_bytes > 0 and first_bucket_bytes > 0):
        raise ValueError(f"bucket limits must be positive, got {bucket_cap_bytes} and {first_bucket_bytes}")
    if any(not nbytes > 0 for nbytes in param_nbytes):
        raise ValueError(f"every size must be positive, got {list(param_nbytes)}")
    buckets, current, size, limit = [], [], 0, first_bucket_bytes
    for index, nbytes in reversed(list(enumerate(param_nbytes))):
        current.append(index)
        size += nbytes
        if size >= limit:  # full: this bucket can be all-reduced as soon as its last gradient is ready
            buckets.append(current)
            current, size, limit = [], 0, bucket_cap_bytes
    if current:
        buckets.append(current)
    return buckets
