# replaces: ShardedOptimizer
# differs: ownership by contiguous blocks in parameter order (the rank whose 1/N of the elements holds a tensor's
#          middle), not largest-first; the broadcasts are started with async_op=True and waited on together
class ShardedOptimizer:
    def __init__(self, params, optimizer_cls, group=None, **optimizer_kwargs):
        self.params = list(dict.fromkeys(params))
        self.group = group
        self.world_size = dist.get_world_size(group)
        self.rank = dist.get_rank(group)
        total = sum(p.numel() for p in self.params)
        self.owner, start = [], 0
        for p in self.params:
            middle = start + p.numel() / 2
            self.owner.append(min(self.world_size - 1, int(self.world_size * middle / max(total, 1))))
            start += p.numel()
        owned = [p for p, r in zip(self.params, self.owner) if r == self.rank]
        self.optimizer = optimizer_cls(owned, **optimizer_kwargs) if owned else None

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def _global(self, group_rank):
        return group_rank if self.group is None else dist.get_global_rank(self.group, group_rank)

    @torch.no_grad()
    def step(self):
        for p, r in zip(self.params, self.owner):
            if p.grad is not None:
                dist.reduce(p.grad, dst=self._global(r), group=self.group)
                if r == self.rank:
                    p.grad.div_(self.world_size)
        if self.optimizer is not None:
            self.optimizer.step()
        handles = [dist.broadcast(p, src=self._global(r), group=self.group, async_op=True)
                   for p, r in zip(self.params, self.owner) if p.requires_grad]
        for handle in handles:
            handle.wait()
