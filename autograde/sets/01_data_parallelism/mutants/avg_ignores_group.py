# replaces: average_gradients
# wrong: ignores `group`: sums over every rank and divides by the world size, so two groups of 2 on 4 ranks average
#   each other's gradients
# must-lose: average_gradients_matches_single_process
# must-keep: average_gradients_frozen_and_tied, ring_all_reduce_matches_builtin, ring_all_reduce_cost_values
def average_gradients(model, group=None):
    world_size = dist.get_world_size()
    for parameter in model.parameters():
        if parameter.grad is not None:
            dist.all_reduce(parameter.grad)
            parameter.grad.div_(world_size)
