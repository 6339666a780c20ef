# attack: plain data parallelism dressed as ZeRO-2: the gradients are reduce-scattered and the averaged shards
#   all-gathered (ZeRO-2's volume, no all-reduce: the collectives cell is honestly passed), then every rank steps one
#   optimizer over the whole model (right values, no parameter gather needed); after each step() it deals its slice
#   of that full state into a shard optimizer_cls instance, with the shard's gradient, and frees the full gradients;
#   built while distlab.track_memory watches (the memory check), it drops the full state after dealing it, so that
#   the rank looks as if it held one shard
# cell: Zero2Optimizer
# zero: zero2_holds_one_shard
import torch
import torch.distributed as dist
from torch.utils._python_dispatch import _get_current_dispatch_mode_stack


class Zero2Optimizer:
    def __init__(self, params, optimizer_cls, group=None, **kwargs):
        self.params = [p for p in dict.fromkeys(params) if p.requires_grad]
        self.group, self.n, self.rank = group, dist.get_world_size(group), dist.get_rank(group)
        numel = sum(p.numel() for p in self.params)
        self.s = -(-numel // self.n)
        self.pad = self.s * self.n - numel
        self.full = getattr(torch.optim, optimizer_cls.__name__)(self.params, **kwargs)
        self.watched = bool(_get_current_dispatch_mode_stack())
        self.shard = self.flat([p.detach() for p in self.params])[self.rank * self.s: (self.rank + 1) * self.s].clone()
        self.dealt = optimizer_cls([self.shard], **kwargs)

    def flat(self, tensors):
        return torch.cat([t.reshape(-1) for t in tensors] + [tensors[0].new_zeros(self.pad)])

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        mine = torch.empty(self.s)
        dist.reduce_scatter_single(mine, self.flat([p.grad for p in self.params]), group=self.group)
        mine /= self.n
        full = torch.empty(self.s * self.n)
        dist.all_gather_single(full, mine, group=self.group)  # the averaged gradient, not the parameters
        offset = 0
        for p in self.params:
            p.grad = full[offset: offset + p.numel()].view_as(p).clone()
            offset += p.numel()
        self.full.step()
        for p in self.params:
            p.grad = None
        lo, hi = self.rank * self.s, (self.rank + 1) * self.s
        self.shard.copy_(self.flat([p.detach() for p in self.params])[lo:hi])
        self.shard.grad = mine
        first = self.full.state[self.params[0]]
        dealt = {key: self.flat([self.full.state[p][key] for p in self.params])[lo:hi].clone()
                 for key in first if first[key].dim() > 0}
        dealt.update({key: value.clone() for key, value in first.items() if value.dim() == 0})
        self.dealt.state[self.shard] = dealt
        if self.watched:
            self.full.state.clear()
