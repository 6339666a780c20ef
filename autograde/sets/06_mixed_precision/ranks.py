"""Rank-side procedures of exercise set 06_mixed_precision (mixed precision and gradient buckets).

They run in the namespace of the learner's notebook, as one more cell at its end: they build objects from the plain
data the grader sends, drive the learner's `DynamicLossScaler` and `assign_buckets`, and return plain data. They hold
no expected values: what they return is a claim that checks.py (next to this file) checks against values it
computes itself (with `torch.amp.GradScaler("cpu")` and a real `DistributedDataParallel`).
"""


def _counting_sgd(params, lr):
    """SGD whose step() returns how many times it has stepped (so that step()'s return value can be followed)."""
    import torch

    class CountingSGD(torch.optim.SGD):
        def step(self, closure=None):
            super().step(closure)
            self.calls = getattr(self, "calls", 0) + 1
            return self.calls

    return CountingSGD(params, lr=lr)


def split_parameters(initial, groups):
    """The trained parameters (their concatenation is `initial`) and the optimizer's param groups: one group of one
    parameter, or (groups=2) the first half in one group and the second half in another, beside a parameter that
    never gets a gradient (its .grad stays None). The grader builds the same (gradscaler_run)."""
    import torch

    if groups == 1:
        w = torch.nn.Parameter(initial.clone())
        return [w], [{"params": [w]}]
    half = len(initial) // 2
    first, second = torch.nn.Parameter(initial[:half].clone()), torch.nn.Parameter(initial[half:].clone())
    idle = torch.nn.Parameter(torch.ones(2))
    return [first, second], [{"params": [first]}, {"params": [second, idle]}]


def drive_scaler(scaler_kwargs, initial, upstreams, unscale_first, lr, resume_at=-1, groups=1):
    """Train w (starting at `initial`) on loss_t = (w * upstreams[t]).sum() with the learner's scaler: scale,
    backward, unscale_ where `unscale_first[t]`, step, update. At step `resume_at` (if any), the scaler's state_dict()
    goes through torch.save / torch.load(weights_only=True), as in a checkpoint, into a new DynamicLossScaler().
    groups=2: w's two halves are two parameters in two param groups, with a third that gets no gradient.

    Returns (the scale after each step [float64], w after each step, what each step() returned, whether every
    get_scale() was a Python float)."""
    import io

    import torch

    trained, param_groups = split_parameters(initial, groups)
    optimizer = _counting_sgd(param_groups, lr)
    scaler = DynamicLossScaler(**scaler_kwargs)  # noqa: F821 - the learner's class
    scales, weights, returned, floats = [], [], [], True
    for step in range(len(upstreams)):
        if step == resume_at:
            checkpoint = io.BytesIO()
            torch.save({"scaler": scaler.state_dict()}, checkpoint)
            checkpoint.seek(0)
            scaler = DynamicLossScaler()  # noqa: F821 - other arguments: the state must carry them
            scaler.load_state_dict(torch.load(checkpoint, weights_only=True)["scaler"])
        w = torch.cat(trained)
        scaler.scale((w * upstreams[step]).sum()).backward()
        if unscale_first[step]:
            scaler.unscale_(optimizer)
        result = scaler.step(optimizer)
        returned.append(result if result is None or isinstance(result, int) else repr(result))
        scaler.update()
        optimizer.zero_grad()
        scale = scaler.get_scale()
        floats &= type(scale) is float
        scales.append(float(scale))
        weights.append(torch.cat(trained).detach().clone())
    return torch.tensor(scales, dtype=torch.float64), torch.stack(weights), returned, floats


def scale_and_unscale(scaler_kwargs, weights, upstream):
    """One step's first half: (scale(loss), the gradients after backward, the gradients after unscale_(),
    get_scale() as a float, whether it was a Python float)."""
    import torch

    w = torch.nn.Parameter(weights.clone())
    optimizer = torch.optim.SGD([w], lr=0.1)
    scaler = DynamicLossScaler(**scaler_kwargs)  # noqa: F821
    scaled = scaler.scale((w * upstream).sum())
    scaled.backward()
    scaled_grad = w.grad.clone()
    scaler.unscale_(optimizer)
    scale = scaler.get_scale()
    return scaled.detach(), scaled_grad, w.grad.clone(), float(scale), type(scale) is float


def unscale_twice(scaler_kwargs, second_call):
    """unscale_() once, then (if `second_call`) again before update(): the learner's second call should raise."""
    import torch

    w = torch.nn.Parameter(torch.ones(3))
    optimizer = torch.optim.SGD([w], lr=0.1)
    scaler = DynamicLossScaler(**scaler_kwargs)  # noqa: F821
    scaler.scale(w.sum()).backward()
    scaler.unscale_(optimizer)
    if second_call:
        scaler.unscale_(optimizer)
    return w.grad.clone()


def make_scaler(scaler_kwargs):
    """DynamicLossScaler(**scaler_kwargs).get_scale()."""
    return float(DynamicLossScaler(**scaler_kwargs).get_scale())  # noqa: F821


def train_tiny(scaler_kwargs, config_kwargs, steps, lr, batch, seq, batch_seed):
    """On each rank: the lesson's TinyTransformer under DDP, fp16 autocast, the learner's scaler, SGD; each rank its
    own batch (seed batch_seed + rank), learnt by heart. Returns (losses, scales [float64], final weights, flat)."""
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel

    from distlab.models import ModelConfig, TinyTransformer, random_batch

    _refuse_gradscaler()  # this rank was forked before the notebook's last cell refused it in the worker
    torch.set_num_threads(1)
    config = ModelConfig(**config_kwargs)
    model = DistributedDataParallel(TinyTransformer(config, seed=0))
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    scaler = DynamicLossScaler(**scaler_kwargs)  # noqa: F821
    losses, scales = [], []
    for step in range(steps):
        tokens, targets = random_batch(config, batch, seq, seed=batch_seed + dist.get_rank())
        with torch.autocast("cpu", dtype=torch.float16):
            loss = F.cross_entropy(model(tokens).flatten(0, 1), targets.flatten())
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        losses.append(loss.item())
        scales.append(float(scaler.get_scale()))
    weights = torch.cat([p.detach().flatten() for p in model.module.parameters()])
    return torch.tensor(losses, dtype=torch.float64), torch.tensor(scales, dtype=torch.float64), weights


def assign_many(cases):
    """assign_buckets(sizes, bucket_cap_bytes=cap, first_bucket_bytes=first) for each (sizes, cap, first): a list of
    buckets as lists of ints, or the text of the exception it raised."""
    results = []
    for sizes, cap, first in cases:
        try:
            buckets = assign_buckets(list(sizes), bucket_cap_bytes=cap, first_bucket_bytes=first)  # noqa: F821
            results.append([[int(i) for i in bucket] for bucket in buckets])
        except Exception as error:  # noqa: BLE001 - reported case by case
            results.append(f"{type(error).__name__}: {error}")
    return results


# --- the earlier function as the statement defines it ---------------------------------------------------------------
# One mistake, one deduction (issue 47.11): spike_cost is judged with the statement's delayed_scale in the place of the
# learner's (a learner may build on it). It comes with each call (statement.py, next to this file) and runs in a
# private namespace: before and after the call, the sandbox holds no copy of it.

def spike_cost_alone(amaxes, spike_step, history_len, algo, statement):
    """The learner's spike_cost(amaxes, spike_step, history_len, algo=algo), with the statement's delayed_scale (the
    source `statement`: `_common.statement_source`) in the place of the learner's for this call."""
    private = {}  # with_stand_ins empties it when the call ends
    exec(compile(statement, "<the statement's versions>", "exec"), private)
    return private["with_stand_ins"](globals(), ["delayed_scale"],
                                     lambda: spike_cost(amaxes, spike_step, history_len, algo=algo))  # noqa: F821


def _refuse_the_references():
    """Replace, in this process, what the checks compare with: `torch.amp.GradScaler` and DDP's bucketing function.

    The exercise asks the learner to write both (its statement says so). This file runs as the notebook's last cell,
    after the learner's cells, in the process where the checks call the learner's code, so a scaler that subclasses
    or wraps GradScaler, or an `assign_buckets` that calls DDP's function, raises here and fails the checks that call
    it. The ranks of a launch were forked before: train_tiny refuses GradScaler there itself (DDP needs the real
    bucketing function there). The grader's own references run outside the sandbox. GradScaler's kernels
    (`torch._amp_update_scale_`, ...) stay: using them is writing it."""
    import torch
    import torch.distributed as dist

    name = "torch.distributed._compute_bucket_assignment_by_size"
    dist._compute_bucket_assignment_by_size = _refused(name)
    dist.distributed_c10d._compute_bucket_assignment_by_size = _refused(name)
    torch._C._distributed_c10d._compute_bucket_assignment_by_size = _refused(name)
    _refuse_gradscaler()


def _refused(name):
    """A function that raises, naming `name` as the reference it stands in for."""
    def refuse(*args, **kwargs):
        raise RuntimeError(f"{name} is what this exercise compares with: write your own")
    return refuse


def _refuse_gradscaler():
    """torch.amp.GradScaler's methods replaced, in this process, by _refused: also called on each rank of train_tiny
    (a scaler that delegates to GradScaler took scaler_trains_the_tiny_model there, issue 45; DDP needs only the
    bucketing function, which stays real on the ranks)."""
    import torch

    for method in ("__init__", "scale", "unscale_", "step", "update", "get_scale", "state_dict", "load_state_dict",
                   "_unscale_grads_"):
        setattr(torch.amp.GradScaler, method, _refused(f"torch.amp.GradScaler.{method}"))


_refuse_the_references()
