# replaces: copy_to_tp_region
# wrong: f's forward broadcasts the input from the group's first rank: the values are right (the input is the same on
#   every rank) but every forward pays a broadcast f does not need; the check counts what each pass moves
# must-lose: copy_to_tp_region_forward_backward
# must-keep: reduce_from_tp_region_forward_backward
def copy_to_tp_region(x, group=None):
    """f (Megatron-LM §3): identity in the forward pass, all-reduce (sum over `group`) of the gradient backward."""
    class CopyToTPRegion(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.clone()
            first = 0 if group is None else dist.get_global_rank(group, 0)
            dist.broadcast(out, src=first, group=group)  # BUG: every rank already holds the input
            return out

        @staticmethod
        def backward(ctx, grad):
            grad = grad.clone()
            dist.all_reduce(grad, group=group)
            return grad

    return CopyToTPRegion.apply(x)
