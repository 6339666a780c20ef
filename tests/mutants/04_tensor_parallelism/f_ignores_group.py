# replaces: copy_to_tp_region
# wrong: f all-reduces over every rank, not over `group`: right while the group is the whole world, wrong in a subgroup
# must-lose: copy_to_tp_region_forward_backward
# must-keep: reduce_from_tp_region_forward_backward
def copy_to_tp_region(x, group=None):
    """f (Megatron-LM §3): identity in the forward pass, all-reduce (sum over `group`) of the gradient backward."""
    class CopyToTPRegion(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)  # a new tensor object, the same values

        @staticmethod
        def backward(ctx, grad):
            grad = grad.clone()  # all_reduce works in place; autograd may still need the incoming gradient
            dist.all_reduce(grad)
            return grad

    return CopyToTPRegion.apply(x)
