# replaces: ShardedOptimizer
# differs: round-robin ownership (parameter i belongs to rank i mod N) instead of balancing the elements; a barrier
#          at the end of step() for good measure
class ShardedOptimizer:
    def __init__(self, params, optimizer_cls, group=None, **optimizer_kwargs):
        self.params = list(dict.fromkeys(params))
        self.group = group
        self.n = dist.get_world_size(group)
        self.me = dist.get_rank(group)
        mine = self.params[self.me::self.n]
        self.optimizer = optimizer_cls(mine, **optimizer_kwargs) if mine else None

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def owner(self, index):
        r = index % self.n
        return r if self.group is None else dist.get_global_rank(self.group, r)

    @torch.no_grad()
    def step(self):
        for i, p in enumerate(self.params):
            if p.grad is not None:
                dist.reduce(p.grad, self.owner(i), group=self.group)
                if i % self.n == self.me:
                    p.grad.mul_(1.0 / self.n)
        if self.optimizer is not None:
            self.optimizer.step()
        for i, p in enumerate(self.params):
            if p.requires_grad:
                dist.broadcast(p, self.owner(i), group=self.group)
        dist.barrier(group=self.group)
