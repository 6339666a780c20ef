# replaces: ring_all_reduce_cost
# wrong: counts only the reduce-scatter phase: (N-1)/N * nbytes and N-1 steps, forgetting the all-gather
# must-lose: ring_all_reduce_cost_values
# must-keep: ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_bytes_match_cost, ring_all_reduce_subgroup, average_gradients_matches_single_process, average_gradients_frozen_and_tied
def ring_all_reduce_cost(world_size, nbytes):
    if world_size < 1 or nbytes < 0:
        raise ValueError("world_size must be >= 1 and nbytes >= 0")
    return {"bytes_sent_per_rank": (world_size - 1) / world_size * nbytes, "steps": world_size - 1}
