"""Rank-side procedures of exercise set 05: run in the sandbox, in the namespace of the student's notebook. They hold
no expected values: `rank_pipeline_step` runs a schedule (plain data, made by the student's `pipeline_schedule` and
already checked by the grader's own simulator) on a real pipeline of ranks and returns the loss and gradients, which
checks.py (next to this file) compares with one process; `rank_zero_bubble_step` does the same for a schedule with
W's, calling the student's backward_input and backward_weight and recording, around each call, whether a weight's
.grad changed. The grader imports this file for the model and its batch; both sides cut the model into parts with
`distlab.models.ModelPart`, lesson 5's `Part`.
"""
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

from distlab.models import ModelConfig, ModelPart, TinyTransformer, random_batch

GRADER_CONFIG = ModelConfig(vocab_size=32, dim=16, n_layers=8, n_heads=2, max_seq_len=8, tie_embeddings=False)
GRADER_BATCH, GRADER_SEQ = 8, 8


def grader_batch(num_microbatches):
    tokens, targets = random_batch(GRADER_CONFIG, GRADER_BATCH, GRADER_SEQ, seed=1)
    return tokens.chunk(num_microbatches), targets.chunk(num_microbatches)


def rank_pipeline_step(schedule, num_microbatches):
    """Run schedule[rank] on this rank's parts (chunk c = part c*p + rank) -> {"loss", "grads" per chunk, "sends"}."""
    p, rank = dist.get_world_size(), dist.get_rank()
    v = 1 + max(op[2] for ops in schedule for op in ops)
    model, last = TinyTransformer(GRADER_CONFIG, seed=0), v * p - 1
    parts = [ModelPart(model, c * p + rank, v * p) for c in range(v)]
    tokens, targets = grader_batch(num_microbatches)
    stash, sends, loss = {}, [], 0.0
    tag = lambda op, mb, k: 2 * (1000 * mb + k) + (op == "B")  # noqa: E731
    for op, mb, chunk in (tuple(op) for op in schedule[rank]):
        k = chunk * p + rank
        received = None
        if (op == "F" and k > 0) or (op == "B" and k < last):
            received = torch.empty(*tokens[mb].shape, GRADER_CONFIG.dim)
            dist.recv(received, src=(k - 1 if op == "F" else k + 1) % p, tag=tag(op, mb, k))
        if op == "F":
            x = tokens[mb] if k == 0 else received.requires_grad_()
            y = parts[chunk](x)
            if k == last:
                y = F.cross_entropy(y.flatten(0, 1), targets[mb].flatten()) / num_microbatches
                loss += y.item()
            else:
                sends.append(dist.isend(y.detach(), dst=(k + 1) % p, tag=tag("F", mb, k + 1)))
            stash[mb, chunk] = (x, y)
        else:
            x, y = stash.pop((mb, chunk))
            y.backward(received)
            if k > 0:
                sends.append(dist.isend(x.grad, dst=(k - 1) % p, tag=tag("B", mb, k - 1)))
    for work in sends:
        work.wait()
    return {"loss": loss, "grads": [[w.grad for w in part.parameters()] for part in parts], "sends": len(sends)}


# --- Part 5: zero bubble, with the student's backward_input and backward_weight --------------------------------------

def rank_grads_snapshot(params):
    return [None if w.grad is None else w.grad.clone() for w in params]


def rank_grads_changed(params, before):
    return any((b is None) != (w.grad is None) or (b is not None and not torch.equal(b, w.grad))
               for w, b in zip(params, before))


def rank_backward_split(weights, inputs, grad_outputs):
    """The student's split on a small net (Linear, tanh, Linear, from `weights`) fed each of `inputs` in turn: every
    backward_input first (the gradients of the inputs, and whether any weight's .grad changed), then every
    backward_weight (the weights' .grad after each); then the same for a scalar loss with no grad_output."""
    net = nn.Sequential(nn.Linear(*weights[0].T.shape), nn.Tanh(), nn.Linear(*weights[2].T.shape))
    params = list(net.parameters())
    with torch.no_grad():
        for w, value in zip(params, weights, strict=True):
            w.copy_(value)
    result = {"input_grads": [], "touched_in_b": [], "grads_after_w": [], "loss_input_grad": None}
    kept = []
    for x, g in zip(inputs, grad_outputs, strict=True):
        x = x.clone().requires_grad_()
        y = net(x)
        before = rank_grads_snapshot(params)
        dx = backward_input(y, x, g)  # noqa: F821 - the student's definition
        result["touched_in_b"].append(rank_grads_changed(params, before))
        result["input_grads"].append(dx.detach().clone() if isinstance(dx, torch.Tensor) else repr(dx)[:200])
        kept.append((y, g))
    for y, g in kept:
        backward_weight(y, params, g)  # noqa: F821 - the student's definition
        result["grads_after_w"].append([None if w.grad is None else w.grad.clone() for w in params])
    net.zero_grad(set_to_none=True)
    x = inputs[0].clone().requires_grad_()
    loss = net(x).square().mean()
    before = rank_grads_snapshot(params)
    dx = backward_input(loss, x, None)  # noqa: F821 - the student's definition
    result["loss_touched_in_b"] = rank_grads_changed(params, before)
    result["loss_input_grad"] = dx.detach().clone() if isinstance(dx, torch.Tensor) else repr(dx)[:200]
    backward_weight(loss, params, None)  # noqa: F821 - the student's definition
    result["loss_grads"] = [None if w.grad is None else w.grad.clone() for w in params]
    return result


def rank_zero_bubble_step(schedule, num_microbatches):
    """Run schedule[rank] (ops F, B, W; one part per rank) with the student's backward_input for B and
    backward_weight for W -> {"loss", "grads", "events", "most_kept", "sends"}. `events` is what happened, in order:
    ("F", mb), ("B", mb, whether a weight's .grad changed during backward_input), ("sent", mb) when B's input
    gradient went to the previous rank, ("W", mb, whether backward_weight changed a weight's .grad)."""
    p, rank = dist.get_world_size(), dist.get_rank()
    model, last = TinyTransformer(GRADER_CONFIG, seed=0), p - 1
    part = ModelPart(model, rank, p)
    params = list(part.parameters())
    tokens, targets = grader_batch(num_microbatches)
    stash, waiting_w, sends, events, loss, most_kept = {}, {}, [], [], 0.0, 0
    tag = lambda op, mb, k: 2 * (1000 * mb + k) + (op == "B")  # noqa: E731
    for op, mb, _ in (tuple(op) for op in schedule[rank]):
        if op == "F":
            x = tokens[mb]
            if rank > 0:
                x = torch.empty(*tokens[mb].shape, GRADER_CONFIG.dim)
                dist.recv(x, src=rank - 1, tag=tag("F", mb, rank))
                x.requires_grad_()
            y = part(x)
            if rank == last:
                y = F.cross_entropy(y.flatten(0, 1), targets[mb].flatten()) / num_microbatches
                loss += y.item()
            else:
                sends.append(dist.isend(y.detach(), dst=rank + 1, tag=tag("F", mb, rank + 1)))
            stash[mb] = (x, y)
            most_kept = max(most_kept, len(stash) + len(waiting_w))
            events.append(("F", mb))
        elif op == "B":
            x, y = stash.pop(mb)
            dy = None
            if rank < last:
                dy = torch.empty(*tokens[mb].shape, GRADER_CONFIG.dim)
                dist.recv(dy, src=rank + 1, tag=tag("B", mb, rank))
            before = rank_grads_snapshot(params)
            if rank > 0:  # the first stage's input is token ids: no input gradient to compute or send
                dx = backward_input(y, x, dy)  # noqa: F821 - the student's definition
                events.append(("B", mb, rank_grads_changed(params, before)))
                if not isinstance(dx, torch.Tensor) or dx.shape != x.shape:
                    raise TypeError(f"rank {rank}: backward_input returned {type(dx).__name__} "
                                    f"{getattr(dx, 'shape', '')}, expected a tensor shaped like the input {x.shape}")
                sends.append(dist.isend(dx.detach().contiguous(), dst=rank - 1, tag=tag("B", mb, rank - 1)))
                events.append(("sent", mb))
            else:
                events.append(("B", mb, False))
            waiting_w[mb] = (y, dy)
        else:
            y, dy = waiting_w.pop(mb)
            before = rank_grads_snapshot(params)
            backward_weight(y, params, dy)  # noqa: F821 - the student's definition
            events.append(("W", mb, rank_grads_changed(params, before)))
    for work in sends:
        work.wait()
    return {"loss": loss, "grads": [w.grad for w in params], "events": events, "most_kept": most_kept,
            "sends": len(sends)}
