# replaces: min_devices_to_fit
# differs: finds N by doubling then bisection on zero_memory_per_gpu (Part 1), after checking the limit N -> infinity
def min_devices_to_fit(n_params, memory_bytes, stage, k=12):
    def fits(n):
        return zero_memory_per_gpu(n_params, n, stage, k) <= memory_bytes

    floor = {0: 4 + k, 1: 4, 2: 2, 3: 0}[stage] * n_params  # what infinitely many devices would still hold
    if memory_bytes <= floor and not fits(1):
        return None
    high = 1
    while not fits(high):
        high *= 2
    low = high // 2  # does not fit (or 0)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if fits(middle) else (middle, high)
    return high
