# replaces: ring_all_reduce
# wrong: does not compile (a missing colon), so ring_all_reduce is never defined
# must-zero: ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_bytes_match_cost, ring_all_reduce_subgroup
# must-keep: ring_all_reduce_cost_values, average_gradients_matches_single_process, average_gradients_frozen_and_tied
def ring_all_reduce(tensor, group=None)
    dist.all_reduce(tensor, group=group)
    return tensor
