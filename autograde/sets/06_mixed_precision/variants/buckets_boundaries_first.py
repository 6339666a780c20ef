# replaces: assign_buckets
# differs: first finds where each bucket ends (a while loop over indices), then turns pairs of boundaries into lists;
#   prints how many buckets it made
def assign_buckets(param_nbytes, bucket_cap_bytes=25 * 2**20, first_bucket_bytes=2**20):
    for name, value in [("bucket_cap_bytes", bucket_cap_bytes), ("first_bucket_bytes", first_bucket_bytes)]:
        if value <= 0:
            raise ValueError(f"{name} must be positive, got {value}")
    for i, nbytes in enumerate(param_nbytes):
        if nbytes <= 0:
            raise ValueError(f"gradient {i} has {nbytes} bytes")
    ends, i, total = [], 0, 0
    while i < len(param_nbytes):
        total += param_nbytes[i]
        i += 1
        if total >= (first_bucket_bytes if not ends else bucket_cap_bytes):
            ends.append(i)
            total = 0
    if not ends or ends[-1] != len(param_nbytes):
        ends.append(len(param_nbytes))
    starts = [0] + ends[:-1]
    buckets = [list(range(a, b)) for a, b in zip(starts, ends) if b > a]
    print(f"{len(param_nbytes)} gradients in {len(buckets)} buckets")
    return buckets
