# replaces: average_gradients
# wrong: walks the modules itself, so the tied weight is averaged twice, each time by an all_gather and a local sum:
#   the values survive, but its gradient crosses the network twice (a count of summing collectives by name missed it;
#   count_comm's elements handed in, at the dispatcher, sees it)
# must-lose: average_gradients_frozen_and_tied
# must-keep: average_gradients_matches_single_process, ring_all_reduce_matches_builtin, ring_all_reduce_cost_values
def average_gradients(model, group=None):
    world_size = dist.get_world_size(group)
    for module in model.modules():
        for parameter in module.parameters(recurse=False):  # BUG: a tied weight comes once per module using it
            if parameter.grad is not None:
                gathered = [torch.empty_like(parameter.grad) for _ in range(world_size)]
                dist.all_gather(gathered, parameter.grad, group=group)
                parameter.grad.copy_(torch.stack(gathered).sum(0) / world_size)
