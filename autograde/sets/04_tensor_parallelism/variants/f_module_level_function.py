# replaces: copy_to_tp_region
# differs: one torch.autograd.Function at module level (the group travels through apply, its gradient is None),
#   all_reduce imported by name, the gradient reduced into a new tensor made with torch.clone
from torch.distributed import all_reduce


class _CopyToTensorParallelRegion(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x.clone()

    @staticmethod
    def backward(ctx, grad_output):
        summed = torch.clone(grad_output)
        all_reduce(summed, op=dist.ReduceOp.SUM, group=ctx.group)
        return summed, None


def copy_to_tp_region(x, group=None):
    """f (Megatron-LM §3): identity in the forward pass, all-reduce (sum over `group`) of the gradient backward."""
    return _CopyToTensorParallelRegion.apply(x, group)
