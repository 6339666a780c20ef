# replaces: ShardedOptimizer
# wrong: divides the summed gradients by dist.get_world_size() (every rank) instead of the group's size: right with
#   the default group, half the step in a group of 2 of 4 ranks (AdamW hides the scale, SGD shows it; issue 47.7)
# must-lose: sharded_optimizer_averages_gradients
# must-keep: sharded_optimizer_matches_adamw, sharded_optimizer_tied_and_frozen, sharded_optimizer_state_is_sharded
class ShardedOptimizer:
    """ZeRO stage 1 (Rajbhandari et al., 2020): each rank keeps `optimizer_cls` state for the parameters it owns only.

    step() averages every gradient over `group` (callers pass each rank's own, un-averaged gradients), lets each
    owner update its parameters, then broadcasts them, so that every rank holds identical parameters equal to
    unsharded training. zero_grad() sets the gradients to None.
    """

    def __init__(self, params, optimizer_cls, group=None, **optimizer_kwargs):
        self.params = list(dict.fromkeys(params))  # distinct tensors, in order (a tensor hashes by identity)
        self.group = group
        self.world_size, self.rank = dist.get_world_size(group), dist.get_rank(group)
        loads, self.owner = [0] * self.world_size, {}
        for index in sorted(range(len(self.params)), key=lambda i: -self.params[i].numel()):  # same on every rank
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

        for i, p in enumerate(self.params):  # the owner needs the sum; the others' grads are not used
            if p.grad is not None:
                dist.reduce(p.grad, dst=global_rank(self.owner[i]), group=self.group)
                if self.owner[i] == self.rank:
                    p.grad.div_(dist.get_world_size())  # wrong: the default group's size, not the group's
        if self.optimizer is not None:
            self.optimizer.step()
        for i, p in enumerate(self.params):
            if p.requires_grad:
                dist.broadcast(p, src=global_rank(self.owner[i]), group=self.group)
