# replaces: ShardedOptimizer
# differs: all-reduces every gradient (every rank gets the sum, not only the owner) and divides on every rank, then
#          the owner steps and broadcasts; ownership largest-first to the least loaded rank, as the prompt suggests
class ShardedOptimizer:
    def __init__(self, params, optimizer_cls, group=None, **optimizer_kwargs):
        self.params = []
        for p in params:
            if not any(p is q for q in self.params):
                self.params.append(p)
        self.group = group
        self.size, self.rank = dist.get_world_size(group), dist.get_rank(group)
        loads = [0] * self.size
        self.owners = [0] * len(self.params)
        for i in sorted(range(len(self.params)), key=lambda i: (-self.params[i].numel(), i)):
            owner = min(range(self.size), key=lambda r: (loads[r], r))
            self.owners[i] = owner
            loads[owner] += self.params[i].numel()
        mine = [p for p, owner in zip(self.params, self.owners) if owner == self.rank]
        self.inner = optimizer_cls(mine, **optimizer_kwargs) if mine else None

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        for p in self.params:
            if p.grad is not None:
                dist.all_reduce(p.grad, group=self.group)
                p.grad /= self.size
        if self.inner is not None:
            self.inner.step()
        for p, owner in zip(self.params, self.owners):
            if p.requires_grad:
                src = owner if self.group is None else dist.get_global_rank(self.group, owner)
                dist.broadcast(p.data, src=src, group=self.group)
