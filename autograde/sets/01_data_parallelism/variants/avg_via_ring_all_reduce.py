# replaces: average_gradients
# differs: sums with the learner's own ring_all_reduce (point-to-point) instead of dist.all_reduce, as Part 3 allows
def average_gradients(model, group=None):
    world_size = dist.get_world_size(group)
    for parameter in model.parameters():
        if parameter.grad is not None:
            ring_all_reduce(parameter.grad, group)
            parameter.grad.div_(world_size)
