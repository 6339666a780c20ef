# attack: no sharding: every rank averages all gradients and steps one optimizer over every parameter (plain data
#   parallelism, correct values); built while distlab.track_memory watches (the memory check), it copies each
#   parameter's state into one optimizer_cls instance on its owner after step() and drops the rest, so the state
#   looks sharded when it is measured
# cell: ShardedOptimizer
# zero: sharded_optimizer_state_is_sharded
import torch
import torch.distributed as dist
from torch.utils._python_dispatch import _get_current_dispatch_mode_stack


class ShardedOptimizer:
    def __init__(self, params, optimizer_cls, group=None, **kwargs):
        self.params = [p for p in dict.fromkeys(params) if p.requires_grad]
        self.full = getattr(torch.optim, optimizer_cls.__name__)(self.params, **kwargs)
        self.watched = bool(_get_current_dispatch_mode_stack())
        world, rank = dist.get_world_size(), dist.get_rank()
        self.mine = [p for i, p in enumerate(self.params) if i % world == rank]
        self.dealt = optimizer_cls(self.mine, **kwargs) if self.watched and self.mine else None

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        for p in self.params:
            dist.all_reduce(p.grad)
            p.grad /= dist.get_world_size()
        self.full.step()
        if self.watched:
            if self.dealt is not None:
                for p in self.mine:
                    self.dealt.state[p] = {key: value.clone() for key, value in self.full.state[p].items()}
            self.full.state.clear()
