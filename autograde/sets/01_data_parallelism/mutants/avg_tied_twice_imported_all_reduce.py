# replaces: average_gradients
# wrong: walks the modules itself, so the tied weight is averaged twice, through an all_reduce imported by name
#   (a count that swapped dist.all_reduce for a counting one never saw this name)
# must-lose: average_gradients_frozen_and_tied
# must-keep: average_gradients_matches_single_process, ring_all_reduce_matches_builtin, ring_all_reduce_cost_values
from torch.distributed import all_reduce


def average_gradients(model, group=None):
    world_size = dist.get_world_size(group)
    for module in model.modules():
        for parameter in module.parameters(recurse=False):  # BUG: a tied weight comes once per module using it
            if parameter.grad is not None:
                all_reduce(parameter.grad, group=group)
                parameter.grad.div_(world_size)
