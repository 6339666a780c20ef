# replaces: ring_all_reduce
# wrong: rank 1 raises, so its peers wait for messages that never come (the launch names rank 1 as failing first)
# must-zero: ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_bytes_match_cost, ring_all_reduce_subgroup
# must-keep: ring_all_reduce_cost_values, average_gradients_matches_single_process, average_gradients_frozen_and_tied
def ring_all_reduce(tensor, group=None):
    if dist.get_rank() == 1:
        raise RuntimeError("rank 1 gives up")
    dist.all_reduce(tensor, group=group)
    return tensor
