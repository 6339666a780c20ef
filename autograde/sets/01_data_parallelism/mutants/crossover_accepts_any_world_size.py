# replaces: ring_crossover_bytes
# wrong: right formula, but no argument checks: 3 or 6 ranks (recursive doubling needs a power of two) and beta = 0
#        give a number or ZeroDivisionError, not ValueError
# must-lose: ring_crossover_bytes_values
# must-keep: ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_bytes_match_cost, ring_all_reduce_subgroup, ring_all_reduce_cost_values, average_gradients_matches_single_process, average_gradients_frozen_and_tied
def ring_crossover_bytes(world_size, alpha, beta):
    rounds = math.log2(world_size)
    saved_per_byte = (rounds - 2 * (world_size - 1) / world_size) * beta
    return math.inf if saved_per_byte <= 0 else (2 * (world_size - 1) - rounds) * alpha / saved_per_byte
