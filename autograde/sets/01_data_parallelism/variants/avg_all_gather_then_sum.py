# replaces: average_gradients
# differs: gathers every rank's gradient with dist.all_gather_into_tensor and sums them locally, instead of an
#          all-reduce; torch 2.13 prints a FutureWarning from inside all_gather_into_tensor (deprecated)
def average_gradients(model, group=None):
    world_size = dist.get_world_size(group)
    for parameter in model.parameters():
        if parameter.grad is None:
            continue
        grad = parameter.grad
        gathered = torch.empty(world_size * grad.numel(), dtype=grad.dtype)
        dist.all_gather_into_tensor(gathered, grad.contiguous().view(-1), group=group)
        grad.copy_(gathered.view(world_size, *grad.shape).sum(dim=0) / world_size)
