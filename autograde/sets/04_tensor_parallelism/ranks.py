"""Rank-side procedures of exercise set 04: run in the sandbox, in the namespace of the student's notebook (they call
`copy_to_tp_region`, `ColumnParallelLinear`, `vocab_parallel_cross_entropy`, ... by name). They hold no expected
values: they build the student's layers from the weights they are given, run them on the given tensors and return
outputs and gradients as plain tensors, which autograde/sets/04_tensor_parallelism/checks.py checks in the grader."""
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

import distlab


def rank_cases(name, shared, mine):
    """Run the procedure `name` of RANK_PROCEDURES once per case, in order (one launch for several cases): case i
    gets its arguments `shared[i]`, then this rank's own `mine[i]`; the list of what each case returned."""
    procedure = RANK_PROCEDURES[name]
    return [procedure(*args, *extra) for args, extra in zip(shared, mine)]


def rank_tp_group(tp):
    """Cut the ranks into groups of `tp` consecutive ranks (every rank makes every group, in order); this rank's group,
    or None (every rank) when `tp` is the world size."""
    world, rank = dist.get_world_size(), dist.get_rank()
    if tp == world:
        return None
    groups = [dist.new_group(list(range(first, first + tp))) for first in range(0, world, tp)]
    return groups[rank // tp]


def rank_detached(t):
    """A plain copy of a tensor the student's code returned (None stays None, anything else is returned as is)."""
    return t.detach().clone() if isinstance(t, torch.Tensor) else t


def rank_moved(counted):
    """What one distlab.count_comm() block saw this rank move: the elements it handed in to collectives (any name,
    any path, broadcast included; a barrier hands in nothing) and the bytes it sent point to point."""
    return {"elements": sum(counted.elements_in.values()), "p2p_bytes": counted.bytes_sent}


def rank_forward_backward(forward, upstream):
    """y = forward(), then backward with `upstream`; y and [what the forward moved, what the backward moved]."""
    with distlab.count_comm() as during_forward:
        y = forward()
    with distlab.count_comm() as during_backward:
        (y * upstream).sum().backward()
    return y, [rank_moved(during_forward), rank_moved(during_backward)]


def rank_f(tp, x, upstream):
    """f on this rank's copy of the full input `x`, back-propagated with this rank's own `upstream` gradient."""
    group = rank_tp_group(tp)
    x = x.clone().requires_grad_()
    y, moved = rank_forward_backward(lambda: copy_to_tp_region(x, group), upstream)  # noqa: F821 - the student's
    return {"y": rank_detached(y), "x_grad": rank_detached(x.grad), "moved": moved}


def rank_g(tp, x, upstream):
    """g on this rank's partial tensor `x`, back-propagated with `upstream`; also returns `x` as it is afterwards."""
    group = rank_tp_group(tp)
    x = x.clone().requires_grad_()
    y, moved = rank_forward_backward(lambda: reduce_from_tp_region(x, group), upstream)  # noqa: F821
    return {"y": rank_detached(y), "x_grad": rank_detached(x.grad), "x_after": rank_detached(x), "moved": moved}


def rank_linear_from(weight, bias):
    """An nn.Linear holding exactly the given full weight and bias (None: no bias)."""
    linear = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None)
    with torch.no_grad():
        linear.weight.copy_(weight)
        if bias is not None:
            linear.bias.copy_(bias)
    return linear


def rank_parallel_layer(kind, linear, group, flag):
    """The student's column (gather_output=flag) or row (input_is_parallel=flag) layer made from `linear`."""
    if kind == "column":
        return ColumnParallelLinear.from_linear(linear, group=group, gather_output=flag)  # noqa: F821
    return RowParallelLinear.from_linear(linear, group=group, input_is_parallel=flag)  # noqa: F821


def rank_layer_grads(layer):
    """The layer's registered parameter names, and its weight's and bias's gradients (None where there is none)."""
    bias = layer.bias
    return {"names": sorted(name for name, _ in layer.named_parameters()),
            "weight_grad": rank_detached(layer.weight.grad),
            "bias_grad": None if bias is None else rank_detached(bias.grad), "has_bias": bias is not None}


def rank_with_statement_f_g(run, statement):
    """run() with the learner's f and g replaced, for the call, by the statement's (the source `statement`:
    `_common.statement_source`, run in a private namespace): one mistake, one deduction (a wrong f costs f's cell, not
    the column layer's too). Layers that do not call f and g by name are unaffected."""
    private = {}  # with_stand_ins empties it when the call ends
    exec(compile(statement, "<the statement's versions>", "exec"), private)
    return private["with_stand_ins"](globals(), ["copy_to_tp_region", "reduce_from_tp_region"], run)


def rank_linear(kind, tp, flag, weight, bias, statement, x, upstream):
    """The student's layer from the full `weight`/`bias`, fed `x` (full, or this rank's block) and back-propagated
    with `upstream` (full, or this rank's block), with the statement's f and g; its output, x.grad and parameter
    gradients (`statement`: the statement's f and g, rank_with_statement_f_g)."""
    def run():
        layer = rank_parallel_layer(kind, rank_linear_from(weight, bias), rank_tp_group(tp), flag)
        xx = x.clone().requires_grad_()
        y, moved = rank_forward_backward(lambda: layer(xx), upstream)
        return {"y": rank_detached(y), "x_grad": rank_detached(xx.grad), **rank_layer_grads(layer), "moved": moved}
    return rank_with_statement_f_g(run, statement)


def rank_rejects(kind, tp, in_features, out_features):
    """Build the student's layer from an nn.Linear whose split dimension the group's size does not divide; what it
    raised (class names and message), or None if it raised nothing."""
    group = rank_tp_group(tp)
    try:
        rank_parallel_layer(kind, nn.Linear(in_features, out_features), group, kind == "row")
    except Exception as error:  # noqa: BLE001 - which exception it was is what the grader checks
        return {"type_names": [c.__name__ for c in type(error).__mro__], "message": str(error)}
    return None


def rank_mlp(tp, up_weight, up_bias, down_weight, down_bias, x, upstream):
    """column (from the up projection), GeLU, row (from the down projection); output, x.grad and every gradient."""
    group = rank_tp_group(tp)
    up = rank_parallel_layer("column", rank_linear_from(up_weight, up_bias), group, False)
    down = rank_parallel_layer("row", rank_linear_from(down_weight, down_bias), group, True)
    x = x.clone().requires_grad_()
    y = down(F.gelu(up(x)))
    (y * upstream).sum().backward()
    grads = {f"{name}.{p}.grad": rank_detached(getattr(layer, p).grad) for name, layer in (("up", up), ("down", down))
             for p in ("weight", "bias")}
    return {"output": rank_detached(y), "x.grad": rank_detached(x.grad), **grads}


def rank_vocab_ce(target, ignore_index, shard):
    """vocab_parallel_cross_entropy on this rank's shard of the logits; the loss and the shard's gradient."""
    shard = shard.clone().requires_grad_()
    loss = vocab_parallel_cross_entropy(shard, target, ignore_index=ignore_index)  # noqa: F821
    loss.backward()
    return {"loss": rank_detached(loss), "grad": rank_detached(shard.grad)}


def rank_vocab_ce_loss(target, shard):
    """One forward and backward of vocab_parallel_cross_entropy; only the loss comes back (the launch's bytes are
    counted by the grader)."""
    return rank_vocab_ce(target, -100, shard)["loss"]


RANK_PROCEDURES = {"rank_f": rank_f, "rank_g": rank_g, "rank_linear": rank_linear, "rank_rejects": rank_rejects,
                   "rank_mlp": rank_mlp, "rank_vocab_ce": rank_vocab_ce}


def merge_and_inputs(*parts):
    """merge_partial_attention(*parts), called in one process (not launched), and what the grader needs to see that
    it left its inputs alone: its result as plain tensors, whether each input still equals a copy taken before the
    call, and whether a returned tensor is one of the inputs (the same object)."""
    before = [p.clone() for p in parts]
    result = merge_partial_attention(*parts)  # noqa: F821
    unchanged = [torch.equal(p, b) if isinstance(p, torch.Tensor) and p.shape == b.shape else False
                 for p, b in zip(parts, before)]
    returned = list(result) if isinstance(result, (tuple, list)) else [result]
    aliases = [any(r is p for p in parts) for r in returned]
    plain = [rank_detached(r) if isinstance(r, torch.Tensor) else r for r in returned]
    return {"result": plain if isinstance(result, (tuple, list)) else result, "tuple": isinstance(result, tuple),
            "unchanged": unchanged, "aliases": aliases}
