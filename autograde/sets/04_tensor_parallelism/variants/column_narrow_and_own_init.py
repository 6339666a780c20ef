# replaces: ColumnParallelLinear
# differs: __init__ draws its own random initial weights (kaiming, like nn.Linear) and from_linear copies the slice
#   in with narrow(); the gather is a module-level Function that concatenates with torch.cat(..., dim=x.dim() - 1)
#   and narrows the gradient back; it prints a line the first time a layer is built
class _GatherColumns(torch.autograd.Function):
    @staticmethod
    def forward(ctx, part, group):
        ctx.group, ctx.width = group, part.shape[-1]
        parts = [torch.zeros_like(part) for _ in range(dist.get_world_size(group))]
        dist.all_gather(parts, part.contiguous(), group=group)
        return torch.cat(parts, dim=part.dim() - 1)

    @staticmethod
    def backward(ctx, grad):
        return grad.narrow(-1, dist.get_rank(ctx.group) * ctx.width, ctx.width), None


class ColumnParallelLinear(nn.Module):
    """Y = X A^T + b with A split by rows (output features) over `group` (Megatron-LM §3, Fig. 3a)."""
    announced = False

    def __init__(self, weight, bias, group=None, gather_output=False):
        super().__init__()
        self.weight = nn.Parameter(torch.empty_like(weight))
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        with torch.no_grad():
            self.weight.copy_(weight)
        self.bias = nn.Parameter(bias.clone()) if bias is not None else None
        self.group, self.gather_output = group, gather_output
        if not ColumnParallelLinear.announced:
            ColumnParallelLinear.announced = True
            print("ColumnParallelLinear: weight", tuple(weight.shape))

    @classmethod
    def from_linear(cls, linear, group=None, gather_output=False):
        world, rank = dist.get_world_size(group), dist.get_rank(group)
        out_features = linear.weight.shape[0]
        if out_features % world != 0:
            raise ValueError("output features must split evenly: %d over %d ranks" % (out_features, world))
        n = out_features // world
        weight = linear.weight.detach().narrow(0, rank * n, n)
        bias = linear.bias.detach().narrow(0, rank * n, n) if linear.bias is not None else None
        return cls(weight, bias, group, gather_output)

    def forward(self, x):
        y = copy_to_tp_region(x, self.group) @ self.weight.t()
        if self.bias is not None:
            y = y + self.bias
        return _GatherColumns.apply(y, self.group) if self.gather_output else y
