"""Rank-side procedures of exercise set 02 (sharding): run in the sandbox, in the namespace of the student's notebook
(they call `zero_memory_per_gpu`, `min_devices_to_fit` and `ShardedOptimizer` by name). They hold no expected values:
what they return is checked by checks.py (next to this file), in the grader. The grader also imports this file for
the models, the batches and the one-process reference training (the same code as the notebook's "optimizer_harness"
cell)."""
import numbers

import torch
import torch.nn as nn

import distlab
from distlab.models import TiedNet


def zero_memory_values(cases):
    """zero_memory_per_gpu(*args, **kwargs) for each (args, kwargs) of `cases`: the value as a float, and the name
    of its type and whether it is a float (the notebook's own report of the type)."""
    results = []
    for args, kwargs in cases:
        got = zero_memory_per_gpu(*args, **kwargs)  # noqa: F821 - the student's definition
        number = isinstance(got, (int, float)) and not isinstance(got, bool)
        results.append({"is_float": isinstance(got, float), "type": type(got).__name__,
                        "value": float(got) if number else None})
    return results


def min_devices_values(cases):
    """min_devices_to_fit(*args, **kwargs) for each (args, kwargs) of `cases`: the value if it is an int or None (else
    None), the name of its type, and whether it is an int (not a bool) or None."""
    results = []
    for args, kwargs in cases:
        got = min_devices_to_fit(*args, **kwargs)  # noqa: F821 - the student's definition
        valid = got is None or (isinstance(got, numbers.Integral) and not isinstance(got, bool))
        results.append({"valid": valid, "type": type(got).__name__, "value": int(got) if valid and got is not None
                        else None})
    return results


def make_net(kind):
    """A fresh model, the same on every rank: "tied" (a tied weight and a frozen layer), "tied-trainable" (the same,
    every layer trained), "mlp", "tiny" (2 tensors) or "wide" (16 tensors)."""
    torch.manual_seed(0)
    if kind in ("tied", "tied-trainable"):
        return TiedNet(hidden=7, frozen=kind == "tied")  # 42 + 7 elements: nothing divides evenly
    if kind == "mlp":
        return nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3), nn.Tanh(), nn.Linear(3, 1))
    if kind == "tiny":
        return nn.Linear(5, 1)
    return nn.Sequential(*[nn.Linear(16, 16) for _ in range(8)])


def batch(kind, step, size=12, seed=100):
    """The full batch of training step `step` for a `kind` model: (inputs, targets), drawn from `seed`."""
    generator = torch.Generator().manual_seed(seed + step)
    if kind.startswith("tied"):
        tokens, targets = torch.randint(0, 11, (2, size, 3), generator=generator)
        return tokens, targets
    features = 5 if kind in ("mlp", "tiny") else 16
    return torch.randn(size, features, generator=generator), torch.randn(size, 1, generator=generator)


def loss_of(kind, model, x, y):
    if kind.startswith("tied"):
        return nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
    out = model(x)
    return nn.functional.mse_loss(out if kind == "mlp" else out.sum(1, keepdim=True), y)


def plain_optimizer(params, optimizer_cls, **kwargs):
    return optimizer_cls(params, **kwargs)


def train(kind, batches, optimizer_name, kwargs, make_optimizer=plain_optimizer):
    """Train a fresh `kind` model on `batches` with make_optimizer(params, torch.optim.<optimizer_name>, **kwargs);
    returns its state dict, the names of the frozen parameters that hold a gradient at the end, and the state every
    optimizer_cls instance it made holds at the end (state_of: what only an optimizer that stepped has)."""
    model = make_net(kind)
    optimizer_cls, made = recording(getattr(torch.optim, optimizer_name))
    optimizer = make_optimizer(model.parameters(), optimizer_cls, **kwargs)
    for x, y in batches:
        optimizer.zero_grad()
        loss_of(kind, model, x, y).backward()
        optimizer.step()
    frozen_with_grad = [name for name, p in model.named_parameters() if not p.requires_grad and p.grad is not None]
    return {"state": {name: t.detach().clone() for name, t in model.state_dict().items()},
            "frozen_with_grad": frozen_with_grad, "held": state_of(made, list(model.parameters()))}


def rank_train(kind, optimizer_name, kwargs, batches):
    """train() with ShardedOptimizer, on this rank's share of each batch."""
    return train(kind, batches, optimizer_name, kwargs, ShardedOptimizer)  # noqa: F821 - the student's definition


def rank_train_in_groups(groups, kind, optimizer_name, kwargs, batches):
    """Make every group of `groups` (lists of global ranks; every rank creates all, in order), then rank_train with
    ShardedOptimizer(..., group=<this rank's group>) on this rank's share of its group's batches."""
    import torch.distributed as dist
    made = [dist.new_group(ranks) for ranks in groups]
    group = next(g for ranks, g in zip(groups, made) if dist.get_rank() in ranks)
    return train(kind, batches, optimizer_name, kwargs,
                 lambda params, cls, **kw: ShardedOptimizer(params, cls, group=group, **kw))  # noqa: F821


def recording(optimizer_cls):
    """A subclass of optimizer_cls that keeps every instance made of it in a list (to read their state later)."""
    made = []

    class Recorded(optimizer_cls):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    Recorded.__name__ = Recorded.__qualname__ = optimizer_cls.__name__
    return Recorded, made


def state_of(optimizers, params):
    """The state tensors of `optimizers`: (index of the parameter in `params`, or -1 for another tensor, {key: tensor})
    for each tensor an optimizer keeps state for."""
    index = {id(p): i for i, p in enumerate(params)}
    return [(index.get(id(p), -1), {key: value.detach().clone() for key, value in state.items()
                                    if isinstance(value, torch.Tensor)})
            for optimizer in optimizers for p, state in optimizer.state.items()]


def rank_optimizer_state(kind, optimizer_name, kwargs, shares):
    """ShardedOptimizer trained one step on this rank's share (x, y) of each batch in `shares`. After each step: the
    bytes distlab.track_memory saw kept by the optimizer (the rank's own report), the state of every optimizer_cls
    instance it made (copies) and this rank's parameters. Several steps: a state dropped after a step to look small
    shows in the next one (its step count, and the update it makes)."""
    model = make_net(kind)
    params = list(model.parameters())
    storages = [p.untyped_storage().data_ptr() for p in params]
    optimizer_cls, made = recording(getattr(torch.optim, optimizer_name))
    kept, after = [], []
    with distlab.track_memory() as mem:  # what the optimizer allocates and keeps
        optimizer = ShardedOptimizer(model.parameters(), optimizer_cls, **kwargs)  # noqa: F821
        for x, y in shares:
            with mem.paused():  # the gradients are the model's, not the optimizer's
                loss_of(kind, model, x, y).backward()
            optimizer.step()
            for p in params:
                p.grad = None  # gradients are not optimizer state, even when step() made new ones
            renewed = sum(p.untyped_storage().nbytes() for p, storage in zip(params, storages)
                          if p.untyped_storage().data_ptr() != storage)  # a parameter given new storage is the model's
            kept.append(mem.live - renewed)
            with mem.paused():
                after.append({"held": state_of(made, params), "parameters": [p.detach().clone() for p in params]})
    return {"kept_bytes": kept, "steps": after}


# --- Part 3: Zero2Optimizer ----------------------------------------------------------------------------------------

def rank_zero2_train(kind, optimizer_name, kwargs, batches):
    """train() with Zero2Optimizer, on this rank's share of each batch."""
    return train(kind, batches, optimizer_name, kwargs, Zero2Optimizer)  # noqa: F821 - the student's definition


def rank_zero2_comm(groups, kind, optimizer_name, kwargs, batches):
    """Zero2Optimizer trained on this rank's share of each batch (with group= this rank's group of `groups`, lists of
    global ranks that every rank creates in order; groups None: no group= at all): the final state dict, and what each
    step() handed to the dispatcher (distlab.count_comm around step() only, as a plain dict)."""
    import torch.distributed as dist
    extra = {}
    if groups is not None:
        made = [dist.new_group(members) for members in groups]
        extra["group"] = next(g for members, g in zip(groups, made) if dist.get_rank() in members)
    model = make_net(kind)
    optimizer_cls = getattr(torch.optim, optimizer_name)
    optimizer = Zero2Optimizer(model.parameters(), optimizer_cls, **extra, **kwargs)  # noqa: F821
    comms = []
    for x, y in batches:
        optimizer.zero_grad()
        loss_of(kind, model, x, y).backward()
        with distlab.count_comm() as comm:
            optimizer.step()
        comms.append(comm.summary())
    return {"state": {name: t.detach().clone() for name, t in model.state_dict().items()}, "comm": comms}


def held_by(optimizers, params):
    """What the optimizer_cls instances hold, one entry per tensor in their param groups: the index of that tensor in
    `params` (-1: another tensor, such as a shard), a copy of it, of its .grad (or None), the bytes of the storage
    under that .grad (a view of a larger buffer keeps the whole buffer alive) and copies of its state tensors."""
    index = {id(p): i for i, p in enumerate(params)}
    held = []
    for optimizer in optimizers:
        for group in optimizer.param_groups:
            for p in group["params"]:
                grad = p.grad
                held.append({"index": index.get(id(p), -1), "value": p.detach().clone(),
                             "grad": None if grad is None else grad.detach().clone(),
                             "grad_storage": 0 if grad is None else grad.untyped_storage().nbytes(),
                             "state": {key: value.detach().clone() for key, value in optimizer.state.get(p, {}).items()
                                       if isinstance(value, torch.Tensor)}})
    return held


def rank_zero2_held(kind, optimizer_name, kwargs, shares):
    """Zero2Optimizer trained one step on this rank's share (x, y) of each batch in `shares`. After each step(): the
    names of the model's parameters that still hold a .grad and the bytes under those, what every optimizer_cls
    instance it made holds (held_by), this rank's parameters, and the bytes distlab.track_memory saw the optimizer
    keep allocated (the rank's own report; the model's gradients, made in backward, are not counted)."""
    model = make_net(kind)
    names, params = zip(*model.named_parameters())
    storages = {p.untyped_storage().data_ptr() for p in params}
    optimizer_cls, made = recording(getattr(torch.optim, optimizer_name))
    after = []
    with distlab.track_memory() as mem:
        optimizer = Zero2Optimizer(model.parameters(), optimizer_cls, **kwargs)  # noqa: F821
        for x, y in shares:
            with mem.paused():
                optimizer.zero_grad()
                loss_of(kind, model, x, y).backward()
            optimizer.step()
            renewed = {p.untyped_storage().data_ptr(): p.untyped_storage().nbytes() for p in params
                       if p.untyped_storage().data_ptr() not in storages}  # parameters given new storage: the model's
            kept = mem.settled_live() - sum(renewed.values())
            with mem.paused():
                grads = {name: p.grad.untyped_storage().nbytes() for name, p in zip(names, params)
                         if p.grad is not None}
                after.append({"model_grads": grads, "held": held_by(made, list(params)), "kept_bytes": kept,
                              "parameters": [p.detach().clone() for p in params]})
    return after


def rank_zero2_errors():
    """Zero2Optimizer built with each bad argument: {case: (name of the exception raised or None, its message)}."""
    frozen = nn.Linear(3, 2).requires_grad_(False)
    cases = {"params: empty": lambda: Zero2Optimizer([], torch.optim.AdamW),  # noqa: F821
             "params: all frozen": lambda: Zero2Optimizer(frozen.parameters(), torch.optim.AdamW),  # noqa: F821
             "params: not tensors": lambda: Zero2Optimizer([1.0, 2.0], torch.optim.SGD, lr=0.1),  # noqa: F821
             "optimizer_cls: a name": lambda: Zero2Optimizer(nn.Linear(3, 2).parameters(), "AdamW"),  # noqa: F821
             "optimizer_cls: a module class": lambda: Zero2Optimizer(nn.Linear(3, 2).parameters(), nn.Linear),  # noqa
             "optimizer_cls: an instance": lambda: Zero2Optimizer(  # noqa: F821
                 nn.Linear(3, 2).parameters(), torch.optim.SGD(nn.Linear(3, 2).parameters(), lr=0.1))}
    found = {}
    for case, make in cases.items():
        try:
            make()
        except Exception as error:  # noqa: BLE001 - which one is the verdict's
            found[case] = (type(error).__name__, str(error))
        else:
            found[case] = (None, "")
    return found
