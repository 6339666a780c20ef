# replaces: elastic_plan
# differs: for each number of ranks, the fewest accumulation steps as a ceiling division, then the next divisor up
def elastic_plan(global_batch, world_size, max_micro_batch, max_accumulation):
    """The (ranks, micro_batch, accumulation) that keeps `global_batch` exactly on at most `world_size` ranks, within
    the limits: the most ranks, then the fewest accumulation steps; None if no plan keeps it."""
    for label, v in (("global_batch", global_batch), ("world_size", world_size),
                     ("max_micro_batch", max_micro_batch), ("max_accumulation", max_accumulation)):
        if type(v) is not int:
            raise ValueError(f"{label} must be an int, got {type(v).__name__}")
        if v < 1:
            raise ValueError(f"{label} must be >= 1, got {v}")
    ranks = world_size
    while ranks >= 1:
        if global_batch % ranks == 0:
            per_rank = global_batch // ranks
            accumulation = -(-per_rank // max_micro_batch)  # the fewest passes that could fit
            while accumulation <= max_accumulation and per_rank % accumulation:
                accumulation += 1
            if accumulation <= max_accumulation:
                return (ranks, per_rank // accumulation, accumulation)
        ranks -= 1
    return None
