# replaces: average_gradients
# differs: ends with a defensive dist.barrier(group=group) (a barrier moves no gradient: it must not count as one)
def average_gradients(model, group=None):
    world_size = dist.get_world_size(group)
    for parameter in model.parameters():
        if parameter.grad is not None:
            dist.all_reduce(parameter.grad, op=dist.ReduceOp.SUM, group=group)
            parameter.grad /= world_size
    dist.barrier(group=group)
