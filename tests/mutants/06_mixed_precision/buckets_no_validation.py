# replaces: assign_buckets
# wrong: accepts limits and sizes of 0 or below (no ValueError)
# must-lose: assign_buckets_rejects_bad_input
# must-keep: assign_buckets_examples, assign_buckets_matches_ddp
def assign_buckets(param_nbytes, bucket_cap_bytes=25 * 2**20, first_bucket_bytes=2**20):
    """DDP's buckets (Li et al. 2020, §3.2.3): lists of indices into `param_nbytes`, given in gradient-ready order."""
    buckets, current, size, limit = [], [], 0, first_bucket_bytes
    for index, nbytes in enumerate(param_nbytes):
        current.append(index)
        size += nbytes
        if size >= limit:  # full: this bucket can be all-reduced as soon as its last gradient is ready
            buckets.append(current)
            current, size, limit = [], 0, bucket_cap_bytes
    if current:
        buckets.append(current)
    return buckets
