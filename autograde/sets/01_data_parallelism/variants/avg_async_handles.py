# replaces: average_gradients
# differs: starts every all-reduce with async_op=True, waits on all the handles, then divides
def average_gradients(model, group=None):
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    handles = [dist.all_reduce(g, group=group, async_op=True) for g in grads]
    for handle in handles:
        handle.wait()
    world_size = dist.get_world_size(group)
    for g in grads:
        g /= world_size
