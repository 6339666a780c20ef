# replaces: ring_all_reduce_cost
# differs: the formula multiplied out, 2 * nbytes - 2 * nbytes / N and 2 * N - 2 steps; both checks in one condition
def ring_all_reduce_cost(world_size, nbytes):
    if world_size < 1 or nbytes < 0:
        raise ValueError(f"need world_size >= 1 and nbytes >= 0, got world_size={world_size}, nbytes={nbytes}")
    return {"bytes_sent_per_rank": 2 * nbytes - 2 * nbytes / world_size, "steps": 2 * world_size - 2}
