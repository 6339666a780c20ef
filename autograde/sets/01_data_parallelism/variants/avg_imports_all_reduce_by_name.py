# replaces: average_gradients
# differs: imports all_reduce and get_world_size by name at the top of the cell instead of calling dist.*
from torch.distributed import all_reduce, get_world_size


def average_gradients(model, group=None):
    size = get_world_size(group)
    for p in model.parameters():
        if p.requires_grad and p.grad is not None:
            all_reduce(p.grad, group=group)
            p.grad.div_(size)
