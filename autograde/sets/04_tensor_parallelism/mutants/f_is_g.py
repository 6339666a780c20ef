# replaces: copy_to_tp_region
# wrong: f and g swapped: f all-reduces in the forward pass and passes the gradient through backward
# must-lose: copy_to_tp_region_forward_backward, tp_mlp_matches_single_process
# must-keep: reduce_from_tp_region_forward_backward, column_parallel_matches_linear, row_parallel_matches_linear
def copy_to_tp_region(x, group=None):
    """f (Megatron-LM §3): identity in the forward pass, all-reduce (sum over `group`) of the gradient backward."""
    class CopyToTPRegion(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            total = x.clone()
            dist.all_reduce(total, group=group)
            return total

        @staticmethod
        def backward(ctx, grad):
            return grad

    return CopyToTPRegion.apply(x)
