# replaces: assign_buckets
# differs: written like DDP's C++ (a bucket accumulator with its own size limit, the limit advancing through a list
#   of limits that stays on its last); sizes taken as floats are fine
def assign_buckets(param_nbytes, bucket_cap_bytes=25 * 2**20, first_bucket_bytes=2**20):
    limits = [first_bucket_bytes, bucket_cap_bytes]
    if any(x <= 0 for x in limits) or any(x <= 0 for x in param_nbytes):
        raise ValueError(f"limits {limits} and sizes must be positive")
    result, which = [], 0
    accumulator = {"indices": [], "size": 0}
    for index, nbytes in enumerate(param_nbytes):
        accumulator["indices"].append(index)
        accumulator["size"] += float(nbytes)
        if accumulator["size"] >= limits[which]:
            result.append(accumulator["indices"])
            accumulator = {"indices": [], "size": 0}
            which = min(which + 1, len(limits) - 1)
    if accumulator["indices"]:
        result.append(accumulator["indices"])
    return result
