"""Rank-side procedures of exercise set 01: run in the sandbox, in the namespace of the student's notebook (they call
`ring_all_reduce` and `average_gradients` by name). They hold no expected values: what they return is checked by
autograde/checks/01_data_parallelism.py, in the grader. The grader also imports this file for the model builders."""
import torch
import torch.distributed as dist
import torch.nn as nn

import distlab


def rank_ring_all_reduce(x):
    """Call ring_all_reduce on this rank's tensor; report what it returned and whether it worked in place."""
    storage = x.data_ptr()
    returned = ring_all_reduce(x)  # noqa: F821 - the student's definition
    return {"returned": returned, "same_object": returned is x, "same_storage": x.data_ptr() == storage, "tensor": x}


def rank_ring_all_reduce_many(tensors):
    return [rank_ring_all_reduce(x)["returned"] for x in tensors]


def rank_ring_all_reduce_counted(x):
    """ring_all_reduce with distlab.count_comm around it (the counts are this rank's own report)."""
    with distlab.count_comm() as comm:
        out = ring_all_reduce(x)  # noqa: F821
    return {"out": out, "collectives": dict(comm.collective_calls), "peers_sent_to": list(comm.peers_sent_to),
            "peers_received_from": list(comm.peers_received_from)}


def rank_ring_all_reduce_in_groups(groups, x):
    """Make every group of `groups` (lists of global ranks; every rank creates all, in order), then ring_all_reduce
    `x` over the group this rank is in (none: x is returned untouched)."""
    made = [dist.new_group(ranks) for ranks in groups]
    for ranks, group in zip(groups, made):
        if dist.get_rank() in ranks:
            return ring_all_reduce(x, group=group)  # noqa: F821
    return x


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


class TiedNet(nn.Module):
    """A tiny language model: the output layer reuses the embedding's weight, and one layer is frozen."""

    def __init__(self, vocab=11, dim=6):
        super().__init__()
        torch.manual_seed(0)
        self.embed = nn.Embedding(vocab, dim)
        self.hidden = nn.Linear(dim, dim)
        self.frozen = nn.Linear(dim, dim)
        self.frozen.requires_grad_(False)
        self.out = nn.Linear(dim, vocab, bias=False)
        self.out.weight = self.embed.weight  # tied

    def forward(self, tokens):
        return self.out(self.frozen(torch.tanh(self.hidden(self.embed(tokens)))))


SUMMING = {"all_reduce": "tensor", "reduce": "tensor", "reduce_scatter": "input_list", "reduce_scatter_tensor": "input"}


class count_summed:
    """Counts the tensor elements this rank hands to the collectives that sum (dist.all_reduce, reduce, ...)."""

    def __enter__(self):
        self.elements, self.calls, self.inside, self.originals = 0, 0, False, {}
        for name, argument in SUMMING.items():
            self.originals[name] = getattr(dist, name)
            setattr(dist, name, self.counting(self.originals[name], argument))
        return self

    def __exit__(self, *exc):
        for name, original in self.originals.items():
            setattr(dist, name, original)

    def counting(self, original, argument):
        position = 1 if argument.startswith("input") else 0

        def counted(*args, **kwargs):
            if self.inside:  # a collective called by another one: counted once, as the outer call
                return original(*args, **kwargs)
            data = kwargs.get(argument, args[position] if len(args) > position else None)
            tensors = data if isinstance(data, (list, tuple)) else [data]
            self.elements += sum(t.numel() for t in tensors if isinstance(t, torch.Tensor))
            self.calls += 1
            self.inside = True
            try:
                return original(*args, **kwargs)
            finally:
                self.inside = False
        return counted


def counted_sync(sync, comm):
    """`sync`, with what it hands to summing collectives and sends point to point appended to `comm`."""
    def run(model):
        with distlab.count_comm() as counted, count_summed() as summed:
            sync(model)
        comm.append((summed.elements, summed.calls, counted.bytes_sent))
    return run


def train_tied(batches, sync=None, lr=0.5):
    """SGD on TiedNet; returns the state dict, whether the frozen layer's grads stayed None, and whether the
    embedding and the output layer still share one weight."""
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
