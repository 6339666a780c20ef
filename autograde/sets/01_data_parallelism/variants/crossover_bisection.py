# replaces: ring_crossover_bytes
# differs: no algebra: writes both time models and bisects on the message size where they cross (math.inf when the
#          ring is not faster even for a petabyte), validating with math.log2(...).is_integer()
def ring_crossover_bytes(world_size, alpha, beta):
    if world_size < 2 or not math.log2(world_size).is_integer():
        raise ValueError(f"recursive doubling needs a power of two >= 2 ranks, got {world_size}")
    if alpha < 0 or not beta > 0:
        raise ValueError(f"alpha must be >= 0 and beta > 0, got {alpha}, {beta}")
    n = world_size

    def ring(size):
        return 2 * (n - 1) * alpha + 2 * (n - 1) / n * beta * size

    def doubling(size):
        return math.log2(n) * (alpha + beta * size)

    low, high = 0.0, 1e15
    if ring(high) >= doubling(high):
        return float("inf")
    if ring(low) < doubling(low) or ring(low) == doubling(low) and ring(1e-12) < doubling(1e-12):
        return 0.0
    for _ in range(400):
        middle = (low + high) / 2
        if ring(middle) < doubling(middle):
            high = middle
        else:
            low = middle
    return high
