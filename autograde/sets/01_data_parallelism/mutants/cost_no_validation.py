# replaces: ring_all_reduce_cost
# wrong: right formula, but no argument checks: world_size 0 divides by zero (ZeroDivisionError, not ValueError),
#        and a negative nbytes gives a negative cost
# must-lose: ring_all_reduce_cost_values
# must-keep: ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_bytes_match_cost, ring_all_reduce_subgroup, average_gradients_matches_single_process, average_gradients_frozen_and_tied
def ring_all_reduce_cost(world_size, nbytes):
    return {"bytes_sent_per_rank": 2 * (world_size - 1) / world_size * nbytes, "steps": 2 * (world_size - 1)}
