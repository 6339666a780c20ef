# replaces: average_gradients
# wrong: walks the modules itself, so a tied weight is met (and summed over ranks) twice, but divided once
# must-lose: average_gradients_frozen_and_tied
# must-keep: average_gradients_matches_single_process, ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_bytes_match_cost, ring_all_reduce_subgroup, ring_all_reduce_cost_values
def average_gradients(model, group=None):
    world_size = dist.get_world_size(group)
    for module in model.modules():
        for parameter in module.parameters(recurse=False):  # BUG: a tied weight comes once per module using it
            if parameter.grad is not None:
                dist.all_reduce(parameter.grad, group=group)
    for parameter in model.parameters():
        if parameter.grad is not None:
            parameter.grad.div_(world_size)
