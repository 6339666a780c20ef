# replaces: RowParallelLinear
# differs: slices with tensor_split, multiplies with x @ weight.T, adds the bias with torch.add after g; the input
#   split's backward all-gathers into one preallocated [t, ..., in/t] buffer (movedim + flatten); a defensive
#   dist.barrier in from_linear
class _SplitColumns(torch.autograd.Function):
    @staticmethod
    def forward(ctx, full, group):
        ctx.group = group
        return full.tensor_split(dist.get_world_size(group), dim=-1)[dist.get_rank(group)].clone()

    @staticmethod
    def backward(ctx, grad):
        t = dist.get_world_size(ctx.group)
        buffer = grad.new_empty((t,) + tuple(grad.shape))
        dist.all_gather(list(buffer.unbind(0)), grad.contiguous(), group=ctx.group)
        return buffer.movedim(0, -2).flatten(-2), None


class RowParallelLinear(nn.Module):
    """Y = X A^T + b with A split by columns (input features) over `group` (Megatron-LM §3, Fig. 3a)."""

    def __init__(self, weight, bias, group=None, input_is_parallel=True):
        super().__init__()
        self.group, self.input_is_parallel = group, input_is_parallel
        self.weight = nn.Parameter(weight.detach().clone())
        self.register_parameter("bias", None if bias is None else nn.Parameter(bias.detach().clone()))

    @classmethod
    def from_linear(cls, linear, group=None, input_is_parallel=True):
        t = dist.get_world_size(group)
        if linear.in_features % t:
            raise ValueError(f"cannot split {linear.in_features} input features over {t} ranks")
        dist.barrier(group=group)
        weight = linear.weight.tensor_split(t, dim=1)[dist.get_rank(group)]
        return cls(weight, linear.bias, group, input_is_parallel)

    def forward(self, x):
        if not self.input_is_parallel:
            x = _SplitColumns.apply(x, self.group)
        y = reduce_from_tp_region(x @ self.weight.T, self.group)
        return torch.add(y, self.bias) if self.bias is not None else y
