# replaces: ring_all_reduce
# wrong: right answer, forbidden means: calls the built-in dist.all_reduce instead of building a ring from sends
#        (the loopback's total matches the ring's model: gloo's built-in all-reduce is a ring too; but it sends to
#        rank - 1, which the bytes per connection show, and count_comm sees the call)
# must-lose: ring_all_reduce_point_to_point_only
# must-keep: ring_all_reduce_bytes_match_cost, ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_subgroup, ring_all_reduce_cost_values, average_gradients_matches_single_process, average_gradients_frozen_and_tied
def ring_all_reduce(tensor, group=None):
    dist.all_reduce(tensor, group=group)  # BUG: a built-in collective
    return tensor
