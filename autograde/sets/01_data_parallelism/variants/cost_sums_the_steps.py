# replaces: ring_all_reduce_cost
# differs: walks the two phases step by step, adding one chunk of nbytes / N per step, instead of the closed formula
def ring_all_reduce_cost(world_size, nbytes):
    if world_size < 1:
        raise ValueError(f"world_size must be at least 1, got {world_size}")
    if nbytes < 0:
        raise ValueError(f"nbytes must be non-negative, got {nbytes}")
    chunk = nbytes / world_size
    sent, steps = 0.0, 0
    for phase in ("reduce-scatter", "all-gather"):
        for _ in range(world_size - 1):
            sent += chunk
            steps += 1
    return {"bytes_sent_per_rank": sent, "steps": steps}
