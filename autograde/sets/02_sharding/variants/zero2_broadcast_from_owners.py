# replaces: Zero2Optimizer
# differs: the updated shards come back as one broadcast from each owner (src named by global rank) into the slices
#   of a flat buffer, not an all-gather
class Zero2Optimizer:
    """ZeRO stage 2 (Rajbhandari et al., 2020, section 5.2) on one flat buffer, the layout of FSDP's flat parameter.

    The trainable parameters, flattened in order and padded with zeros to N shards of S = ceil(Ψ / N) elements, are
    split among the N ranks of `group`: rank r owns elements [rS, (r+1)S). step() reduce-scatters the gradients
    (averaged over the group), frees the full ones, steps this rank's shard with its own `optimizer_cls` and
    all-gathers the updated shards into every parameter. zero_grad() sets the gradients to None.
    """

    def __init__(self, params, optimizer_cls, group=None, **optimizer_kwargs):
        params = list(params)  # a generator is read once
        if not all(isinstance(p, torch.Tensor) for p in params):
            raise ValueError("params must be an iterable of tensors")
        if not (isinstance(optimizer_cls, type) and issubclass(optimizer_cls, torch.optim.Optimizer)):
            raise ValueError(f"optimizer_cls must be a torch.optim.Optimizer class, got {optimizer_cls!r}")
        self.params = [p for p in dict.fromkeys(params) if p.requires_grad]  # distinct, trainable, in order
        if not self.params:
            raise ValueError("params holds no trainable tensor (requires_grad=True): nothing to optimize")
        self.group = group
        self.world_size, self.rank = dist.get_world_size(group), dist.get_rank(group)
        numel = sum(p.numel() for p in self.params)
        self.shard_numel = -(-numel // self.world_size)  # S = ceil(Ψ / N)
        self.padding = self.shard_numel * self.world_size - numel
        flat = torch.cat([p.detach().reshape(-1) for p in self.params] + [self.params[0].new_zeros(self.padding)])
        self.shard = flat[self.rank * self.shard_numel: (self.rank + 1) * self.shard_numel].clone()
        self.optimizer = optimizer_cls([self.shard], **optimizer_kwargs)

    def zero_grad(self):
        for p in self.params + [self.shard]:
            p.grad = None

    @torch.no_grad()
    def step(self):
        flat_grad = torch.cat([p.grad.reshape(-1) for p in self.params] + [self.shard.new_zeros(self.padding)])
        for p in self.params:
            p.grad = None  # ZeRO-2: the full gradients go; this rank keeps only its averaged shard
        grad = torch.empty_like(self.shard)
        dist.reduce_scatter_single(grad, flat_grad, group=self.group)  # the sum of my shard, from every rank
        del flat_grad
        self.shard.grad = grad.div_(self.world_size)
        self.optimizer.step()
        flat = torch.empty(self.shard_numel * self.world_size, dtype=self.shard.dtype)
        for owner, piece in enumerate(flat.split(self.shard_numel)):
            if owner == self.rank:
                piece.copy_(self.shard)
            src = owner if self.group is None else dist.get_global_rank(self.group, owner)
            dist.broadcast(piece, src=src, group=self.group)
        offset = 0
        for p in self.params:
            p.copy_(flat[offset: offset + p.numel()].view_as(p))
            offset += p.numel()
