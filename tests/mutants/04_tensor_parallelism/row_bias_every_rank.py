# replaces: RowParallelLinear
# wrong: adds the bias on every rank before g: the output holds t copies of it
# must-lose: row_parallel_matches_linear, row_parallel_splits_full_input, tp_mlp_matches_single_process
# must-keep: column_parallel_matches_linear, parallel_linear_rejects_indivisible
class RowParallelLinear(nn.Module):
    """Y = X A^T + b with A split by columns (input features) over `group` (Megatron-LM §3, Fig. 3a)."""

    def __init__(self, weight, bias, group=None, input_is_parallel=True):
        super().__init__()
        self.weight = nn.Parameter(weight)
        self.bias = None if bias is None else nn.Parameter(bias)
        self.group, self.input_is_parallel = group, input_is_parallel

    @classmethod
    def from_linear(cls, linear, group=None, input_is_parallel=True):
        t, r = dist.get_world_size(group), dist.get_rank(group)
        if linear.in_features % t:
            raise ValueError(f"in_features={linear.in_features} is not divisible by the {t} ranks of the group")
        columns = slice(r * linear.in_features // t, (r + 1) * linear.in_features // t)
        bias = None if linear.bias is None else linear.bias.detach().clone()
        return cls(linear.weight.detach()[:, columns].clone(), bias, group, input_is_parallel)

    def forward(self, x):
        group = self.group
        if not self.input_is_parallel:
            class ScatterToTPRegion(torch.autograd.Function):
                @staticmethod
                def forward(ctx, full):
                    return full.chunk(dist.get_world_size(group), dim=-1)[dist.get_rank(group)].contiguous()

                @staticmethod
                def backward(ctx, grad):
                    parts = [torch.empty_like(grad) for _ in range(dist.get_world_size(group))]
                    dist.all_gather(parts, grad.contiguous(), group=group)
                    return torch.cat(parts, dim=-1)

            x = ScatterToTPRegion.apply(x)
        return reduce_from_tp_region(F.linear(x, self.weight, self.bias), group)
