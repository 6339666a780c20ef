# replaces: assign_buckets
# differs: a generator yields each bucket as it closes, and the limits come from itertools (the first, then the cap
#   forever); the validation raises a ValueError subclass
import itertools


class BucketSizeError(ValueError):
    pass


def _buckets(sizes, limits):
    limit, bucket, filled = next(limits), [], 0
    for index, size in enumerate(sizes):
        bucket, filled = bucket + [index], filled + size
        if filled >= limit:
            yield bucket
            limit, bucket, filled = next(limits), [], 0
    if bucket:
        yield bucket


def assign_buckets(param_nbytes, bucket_cap_bytes=25 * 2**20, first_bucket_bytes=2**20):
    if min([bucket_cap_bytes, first_bucket_bytes, *param_nbytes]) <= 0:
        raise BucketSizeError(f"not positive: caps {bucket_cap_bytes}, {first_bucket_bytes}; sizes {param_nbytes}")
    return list(_buckets(param_nbytes, itertools.chain([first_bucket_bytes], itertools.repeat(bucket_cap_bytes))))
