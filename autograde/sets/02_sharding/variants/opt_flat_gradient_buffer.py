# replaces: ShardedOptimizer
# differs: packs every gradient into one flat buffer and all-reduces it in a single call, then each owner steps and
#          broadcasts its parameters
class ShardedOptimizer:
    def __init__(self, params, optimizer_cls, group=None, **optimizer_kwargs):
        self.params = list(dict.fromkeys(params))
        self.group = group
        self.world_size, self.rank = dist.get_world_size(group), dist.get_rank(group)
        loads = [0] * self.world_size
        self.owner = [None] * len(self.params)
        for i in sorted(range(len(self.params)), key=lambda i: -self.params[i].numel()):
            self.owner[i] = loads.index(min(loads))
            loads[self.owner[i]] += self.params[i].numel()
        owned = [p for p, o in zip(self.params, self.owner) if o == self.rank]
        self.optimizer = optimizer_cls(owned, **optimizer_kwargs) if owned else None

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        with_grad = [p for p in self.params if p.grad is not None]
        if with_grad:
            flat = torch.cat([p.grad.reshape(-1) for p in with_grad])
            dist.all_reduce(flat, group=self.group)
            flat /= self.world_size
            for p, piece in zip(with_grad, flat.split([p.numel() for p in with_grad])):
                p.grad.copy_(piece.view_as(p.grad))
        if self.optimizer is not None:
            self.optimizer.step()
        for p, o in zip(self.params, self.owner):
            if p.requires_grad:
                dist.broadcast(p, src=o if self.group is None else dist.get_global_rank(self.group, o), group=self.group)
