# replaces: ring_crossover_bytes
# wrong: solves the equation without asking whether the ring can win: at N = 2 both send S, the ring pays one more
#        latency and is never faster, and the division by zero raises ZeroDivisionError instead of returning math.inf
# must-lose: ring_crossover_bytes_values
# must-keep: ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_bytes_match_cost, ring_all_reduce_subgroup, ring_all_reduce_cost_values, average_gradients_matches_single_process, average_gradients_frozen_and_tied
def ring_crossover_bytes(world_size, alpha, beta):
    if world_size < 2 or world_size & (world_size - 1):
        raise ValueError("world_size must be a power of two >= 2")
    if alpha < 0 or beta <= 0:
        raise ValueError("need alpha >= 0 and beta > 0")
    rounds = math.log2(world_size)
    return (2 * (world_size - 1) - rounds) * alpha / ((rounds - 2 * (world_size - 1) / world_size) * beta)  # BUG
