"""Rank-side procedures of exercise set 01: run in the sandbox, in the namespace of the student's notebook (they call
`ring_all_reduce` and `average_gradients` by name). They hold no expected values: what they return is checked by
checks.py (next to this file), in the grader. The grader also imports this file for the model builders."""
import socket

import torch
import torch.distributed as dist
import torch.nn as nn

import distlab
from distlab.models import TiedNet


def rank_ring_all_reduce(x):
    """Call ring_all_reduce on this rank's tensor; report what it returned and whether it worked in place."""
    storage = x.data_ptr()
    returned = ring_all_reduce(x)  # noqa: F821 - the student's definition
    return {"returned": returned, "same_object": returned is x, "same_storage": x.data_ptr() == storage, "tensor": x}


def rank_ring_all_reduce_many(tensors):
    return [rank_ring_all_reduce(x)["returned"] for x in tensors]


def rank_ring_all_reduce_watched(port_base, x):
    """ring_all_reduce (with distlab.count_comm around it: this rank's own report), then, after a barrier, wait
    while the grader reads every connection's byte counters from the kernel (autograde/netstat.py): bind UDP
    127.0.0.1:port_base + rank and wait for the grader's datagram."""
    with distlab.count_comm() as comm:
        out = ring_all_reduce(x)  # noqa: F821
    dist.barrier()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as done:
        done.bind(("127.0.0.1", port_base + dist.get_rank()))
        done.settimeout(15)
        done.recv(16)
    return {"out": out, "collectives": dict(comm.collective_calls)}


def rank_group_of(groups):
    """Make every group of `groups` (lists of global ranks; every rank creates all, in order); this rank's group, or
    None if it is in none."""
    made = [dist.new_group(ranks) for ranks in groups]
    return next((group for ranks, group in zip(groups, made) if dist.get_rank() in ranks), None)


def rank_ring_all_reduce_in_groups(groups, x):
    """ring_all_reduce `x` over the group of `groups` this rank is in (none: x is returned untouched)."""
    group = rank_group_of(groups)
    return x if group is None else ring_all_reduce(x, group=group)  # noqa: F821


def rank_idle(x):
    """A launch that moves nothing but what starting the ranks moves: the baseline of loopback counts."""
    return x


def make_mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))


def train_mlp(batches, sync=None, lr=0.1):
    """Plain SGD on `batches` (this rank's share of each), calling `sync(model)` after each backward."""
    model = make_mlp()
    for x, y in batches:
        model.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        if sync is not None:
            sync(model)
        with torch.no_grad():
            for p in model.parameters():
                if p.grad is not None:
                    p -= lr * p.grad
    return [p.detach().clone() for p in model.parameters()]


def rank_train_mlp(batches):
    return train_mlp(batches, average_gradients)  # noqa: F821


def rank_train_mlp_in_groups(groups, batches):
    """Train with average_gradients(model, group=<this rank's group of `groups`>) on this rank's share of its group's
    batches."""
    group = rank_group_of(groups)
    return train_mlp(batches, lambda model: average_gradients(model, group=group))  # noqa: F821


def handed_in(counted):
    """(elements handed in to collectives, calls) of a distlab.count_comm() block: every collective but broadcast
    and barrier, whatever name or path called it (all_reduce, reduce, reduce_scatter, all_gather, all_to_all...)."""
    free = ("broadcast", "barrier", "monitored_barrier")
    return (sum(n for name, n in counted.elements_in.items() if name not in free),
            sum(n for name, n in counted.collective_calls.items() if name not in free))


def counted_sync(sync, comm):
    """`sync`, with what it hands in to collectives (counted at the dispatcher: any name, any path) and sends point
    to point appended to `comm`."""
    def run(model):
        with distlab.count_comm() as counted:
            sync(model)
        comm.append((*handed_in(counted), counted.bytes_sent))
    return run


def train_tied(batches, sync=None, lr=0.5):
    """SGD on TiedNet (every layer 6 wide); returns the state dict, whether the frozen layer's grads stayed None, and
    whether the embedding and the output layer still share one weight."""
    model = TiedNet()
    frozen_grad_is_none = True
    for tokens, targets in batches:
        model.zero_grad()
        nn.functional.cross_entropy(model(tokens), targets).backward()
        if sync is not None:
            sync(model)
        frozen_grad_is_none &= model.frozen.weight.grad is None and model.frozen.bias.grad is None
        with torch.no_grad():
            for p in model.parameters():
                if p.grad is not None:
                    p -= lr * p.grad
    state = {name: p.detach().clone() for name, p in model.state_dict().items()}
    return {"state": state, "frozen_grad_is_none": frozen_grad_is_none, "tied": model.out.weight is model.embed.weight}


def rank_train_tied(batches):
    comm = []
    result = train_tied(batches, counted_sync(average_gradients, comm))  # noqa: F821
    return {**result, "comm": comm}
