# replaces: average_gradients
# wrong: sums the gradients over ranks but never divides: N times the full-batch gradient, an N times larger step
# must-lose: average_gradients_matches_single_process, average_gradients_frozen_and_tied
# must-keep: ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_bytes_match_cost, ring_all_reduce_subgroup, ring_all_reduce_cost_values
def average_gradients(model, group=None):
    for parameter in model.parameters():
        if parameter.grad is not None:
            dist.all_reduce(parameter.grad, group=group)  # BUG: no division by the world size
