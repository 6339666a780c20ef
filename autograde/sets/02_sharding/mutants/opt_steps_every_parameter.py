# replaces: ShardedOptimizer
# wrong: every rank keeps optimizer state for, and steps, all the parameters: right results, no memory saved (every
#   ShardedOptimizer cell judges where the state is: values alone let one process answer for the class, issue 45)
# must-lose: sharded_optimizer_state_is_sharded, sharded_optimizer_averages_gradients,
#   sharded_optimizer_tied_and_frozen, sharded_optimizer_matches_adamw
class ShardedOptimizer:
    def __init__(self, params, optimizer_cls, group=None, **optimizer_kwargs):
        self.params = list(dict.fromkeys(params))
        self.group = group
        self.world_size = dist.get_world_size(group)
        self.optimizer = optimizer_cls(self.params, **optimizer_kwargs)  # BUG: state for every parameter

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        for p in self.params:
            if p.grad is not None:
                dist.all_reduce(p.grad, group=self.group)
                p.grad.div_(self.world_size)
        self.optimizer.step()
