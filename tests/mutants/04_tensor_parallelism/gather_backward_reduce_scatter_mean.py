# replaces: ColumnParallelLinear
# wrong: gather_output's backward reduce-scatters the gradient and divides by t: the values are right (the upstream
#   gradient of a full output is the same on every rank) but every backward pays a reduce-scatter it does not need
# must-lose: column_parallel_gather_output_backward
# must-keep: column_parallel_matches_linear, parallel_linear_rejects_indivisible
class ColumnParallelLinear(nn.Module):
    """Y = X A^T + b with A split by rows (output features) over `group` (Megatron-LM §3, Fig. 3a)."""

    def __init__(self, weight, bias, group=None, gather_output=False):
        super().__init__()
        self.weight = nn.Parameter(weight)
        self.bias = None if bias is None else nn.Parameter(bias)
        self.group, self.gather_output = group, gather_output

    @classmethod
    def from_linear(cls, linear, group=None, gather_output=False):
        t, r = dist.get_world_size(group), dist.get_rank(group)
        if linear.out_features % t:
            raise ValueError(f"out_features={linear.out_features} is not divisible by the {t} ranks of the group")
        rows = slice(r * linear.out_features // t, (r + 1) * linear.out_features // t)
        bias = None if linear.bias is None else linear.bias.detach()[rows].clone()
        return cls(linear.weight.detach()[rows].clone(), bias, group, gather_output)

    def forward(self, x):
        group = self.group
        y = F.linear(copy_to_tp_region(x, group), self.weight, self.bias)
        if not self.gather_output:
            return y

        class GatherFromTPRegion(torch.autograd.Function):
            @staticmethod
            def forward(ctx, part):
                parts = [torch.empty_like(part) for _ in range(dist.get_world_size(group))]
                dist.all_gather(parts, part.contiguous(), group=group)
                return torch.cat(parts, dim=-1)

            @staticmethod
            def backward(ctx, grad):
                t = dist.get_world_size(group)
                parts = [p.contiguous() for p in grad.chunk(t, dim=-1)]
                mine = torch.empty_like(parts[0])
                dist.reduce_scatter(mine, parts, group=group)  # BUG: the gradient is already the same everywhere
                return mine / t

        return GatherFromTPRegion.apply(y)
