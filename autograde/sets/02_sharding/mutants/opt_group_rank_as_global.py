# replaces: ShardedOptimizer
# wrong: names the owner by its group rank where torch.distributed wants a global rank (src=, dst=): right with the
#   default group, wrong in a group of ranks [0, 2] or [1, 3]
#   (the group= case is in sharded_optimizer_averages_gradients alone, so it costs that cell, not AdamW's: issue 47.12)
# must-lose: sharded_optimizer_averages_gradients
# must-keep: sharded_optimizer_matches_adamw, sharded_optimizer_tied_and_frozen, sharded_optimizer_state_is_sharded
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
        return r  # BUG: a group rank taken for a global rank (right only when the group is every rank)

    @torch.no_grad()
    def step(self):
        for i, p in enumerate(self.params):
            if p.grad is not None:
                dist.reduce(p.grad, dst=self.global_rank(self.owner[i]), group=self.group)
                if self.owner[i] == self.rank:
                    p.grad.div_(self.world_size)
        if self.optimizer is not None:
            self.optimizer.step()
        for i, p in enumerate(self.params):
            if p.requires_grad:
                dist.broadcast(p, src=self.global_rank(self.owner[i]), group=self.group)
