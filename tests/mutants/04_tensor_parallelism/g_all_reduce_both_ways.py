# replaces: reduce_from_tp_region
# wrong: g all-reduces the gradient backward too: the input gradient is t times too large
# must-lose: reduce_from_tp_region_forward_backward, tp_mlp_matches_single_process
# must-keep: copy_to_tp_region_forward_backward, row_parallel_matches_linear, column_parallel_matches_linear
def reduce_from_tp_region(x, group=None):
    """g (Megatron-LM §3): all-reduce (sum over `group`) in the forward pass, identity for the gradient backward."""
    class ReduceFromTPRegion(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            total = x.clone()
            dist.all_reduce(total, group=group)
            return total

        @staticmethod
        def backward(ctx, grad):
            grad = grad.clone()
            dist.all_reduce(grad, group=group)
            return grad

    return ReduceFromTPRegion.apply(x)
