# replaces: ShardedOptimizer
# wrong: reduces every parameter's gradient, but a frozen parameter's grad is None: reduce(None) raises
# must-lose: sharded_optimizer_tied_and_frozen
# must-keep: sharded_optimizer_matches_adamw, sharded_optimizer_averages_gradients, sharded_optimizer_state_is_sharded
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

    def global_rank(self, r):
        return r if self.group is None else dist.get_global_rank(self.group, r)

    @torch.no_grad()
    def step(self):
        for i, p in enumerate(self.params):
            dist.reduce(p.grad, dst=self.global_rank(self.owner[i]), group=self.group)  # BUG: p.grad may be None
            if self.owner[i] == self.rank:
                p.grad.div_(self.world_size)
        if self.optimizer is not None:
            self.optimizer.step()
        for i, p in enumerate(self.params):
            dist.broadcast(p, src=self.global_rank(self.owner[i]), group=self.group)
