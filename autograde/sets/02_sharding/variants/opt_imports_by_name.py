# replaces: ShardedOptimizer
# differs: imports broadcast, reduce and the rank helpers by name at the top of the cell instead of calling dist.*
from torch.distributed import broadcast, get_global_rank, get_rank, get_world_size, reduce


class ShardedOptimizer:
    def __init__(self, params, optimizer_cls, group=None, **optimizer_kwargs):
        self.params = list(dict.fromkeys(params))
        self.group = group
        self.world_size, self.rank = get_world_size(group), get_rank(group)
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
            return r if self.group is None else get_global_rank(self.group, r)

        for i, p in enumerate(self.params):
            if p.grad is not None:
                reduce(p.grad, dst=global_rank(self.owner[i]), group=self.group)
                if self.owner[i] == self.rank:
                    p.grad.div_(self.world_size)
        if self.optimizer is not None:
            self.optimizer.step()
        for i, p in enumerate(self.params):
            if p.requires_grad:
                broadcast(p, src=global_rank(self.owner[i]), group=self.group)
