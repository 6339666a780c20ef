# replaces: ShardedOptimizer
# differs: the owner replaces its summed gradient by torch.tensor(p.grad) / N, a copy that makes PyTorch print a
#          UserWarning on the ranks ("To copy construct from a tensor, it is recommended to use ...clone()")
class ShardedOptimizer:
    def __init__(self, params, optimizer_cls, group=None, **optimizer_kwargs):
        self.params = list(dict.fromkeys(params))
        self.group = group
        self.world_size, self.rank = dist.get_world_size(group), dist.get_rank(group)
        loads, self.owner = [0] * self.world_size, {}
        for index in sorted(range(len(self.params)), key=lambda i: -self.params[i].numel()):
            owner = loads.index(min(loads))
            self.owner[index] = owner
            loads[owner] += self.params[index].numel()
        owned = [p for i, p in enumerate(self.params) if self.owner[i] == self.rank]
        self.optimizer = optimizer_cls(owned, **optimizer_kwargs) if owned else None

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        def global_rank(r):
            return r if self.group is None else dist.get_global_rank(self.group, r)

        for i, p in enumerate(self.params):
            if p.grad is not None:
                dist.reduce(p.grad, dst=global_rank(self.owner[i]), group=self.group)
                if self.owner[i] == self.rank:
                    p.grad = torch.tensor(p.grad) / self.world_size  # a copy: PyTorch warns
        if self.optimizer is not None:
            self.optimizer.step()
        for i, p in enumerate(self.params):
            if p.requires_grad:
                dist.broadcast(p, src=global_rank(self.owner[i]), group=self.group)
