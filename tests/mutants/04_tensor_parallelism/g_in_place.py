# replaces: reduce_from_tp_region
# wrong: g all-reduces its input in place (the caller's partial sum is overwritten) and returns it
# must-lose: reduce_from_tp_region_forward_backward
# must-keep: copy_to_tp_region_forward_backward
def reduce_from_tp_region(x, group=None):
    """g (Megatron-LM §3): all-reduce (sum over `group`) in the forward pass, identity for the gradient backward."""
    class ReduceFromTPRegion(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            total = x
            dist.all_reduce(total, group=group)
            return total.view_as(total)

        @staticmethod
        def backward(ctx, grad):
            return grad

    return ReduceFromTPRegion.apply(x)
