# replaces: average_gradients
# wrong: does not skip parameters without a gradient: a frozen parameter's grad is None and all_reduce(None) raises
# must-lose: average_gradients_frozen_and_tied
# must-keep: average_gradients_matches_single_process, ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_bytes_match_cost, ring_all_reduce_subgroup, ring_all_reduce_cost_values
def average_gradients(model, group=None):
    world_size = dist.get_world_size(group)
    for parameter in model.parameters():
        dist.all_reduce(parameter.grad, group=group)  # BUG: parameter.grad is None for a frozen parameter
        parameter.grad.div_(world_size)
