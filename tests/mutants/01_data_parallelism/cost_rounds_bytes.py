# replaces: ring_all_reduce_cost
# wrong: rounds bytes_sent_per_rank to a whole byte: 1333 for 3 ranks and 1000 bytes, where the statement asks for the
#   mean over ranks, not rounded (1333.33...; issue 47.5)
# must-lose: ring_all_reduce_cost_values
def ring_all_reduce_cost(world_size, nbytes):
    """Predicted cost of ring_all_reduce on `world_size` ranks for a tensor of `nbytes` bytes.

    Returns {"bytes_sent_per_rank": ..., "steps": ...}, counted from the ring you wrote in Part 1 (bytes_sent_per_rank:
    the mean over ranks, not rounded, e.g. 1333.33... for 3 ranks and 1000 bytes); raises ValueError if world_size < 1
    or nbytes < 0.
    """
    if world_size < 1:
        raise ValueError(f"world_size must be at least 1, got {world_size}")
    if nbytes < 0:
        raise ValueError(f"nbytes must be non-negative, got {nbytes}")
    return {"bytes_sent_per_rank": round(2 * (world_size - 1) / world_size * nbytes),  # wrong: rounded
            "steps": 2 * (world_size - 1)}
