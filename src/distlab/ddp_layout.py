"""DDP whose gradient sums do not depend on how it lays gradients out in buckets: exact resumption at any world size.

    model = distlab.fixed_layout_ddp(model)      # DDP(model) + the comm hook below; same arguments as DDP

Why. DDP copies the gradients into flat buckets and all-reduces each bucket. For its first iteration it puts every
parameter in one bucket (by default: find_unused_parameters=False), in the order `model.parameters()` gives; after
that iteration it rebuilds the buckets in the order the gradients became ready (the last layer's first). An
all-reduce over N ranks cuts a buffer into pieces and sums each along its own path through the ranks (a ring starts
each chunk's sum at a different rank), so the order in which an element's N values are added depends on where it
sits in the buffer. Floating-point addition is not associative: from 3 ranks on, moving an element can change the
last bits of its sum. (At 2 ranks every element is a single addition, a + b = b + a, whatever the order.) A run
resumed from a checkpoint takes its first step with the first-iteration layout where the run that never stopped had
the rebuilt one: the weights part by a few bits at that step, and the two runs go on apart.

The fix here: a DDP communication hook that all-reduces each parameter's gradient as a tensor of its own, so that
every element's order of additions depends on the parameter's size and the world size only, never on the bucket.
It costs one collective per parameter tensor (more latency for a model with many small tensors). Recent PyTorch's
`DDP(..., bucket_cap_mb_list=[tiny])` (one parameter per bucket, before and after the rebuild) has the same effect.

    pytest tests/test_resume_script.py
"""
from __future__ import annotations

import torch
import torch.distributed as dist


def per_parameter_allreduce(process_group, bucket):
    """DDP comm hook: sum each parameter's gradient over the ranks on its own, then divide by the world size.

    `bucket.gradients()` are views into `bucket.buffer()`, so the in-place all-reduces fill the buffer, which the
    hook returns (in a future) as DDP requires. Register it with `ddp.register_comm_hook(None, per_parameter_allreduce)`
    before the first forward pass, or use `fixed_layout_ddp`.
    """
    group = process_group if process_group is not None else dist.group.WORLD
    for gradient in bucket.gradients():  # one tensor per parameter, whatever bucket it is in
        dist.all_reduce(gradient, group=group)
    future = torch.futures.Future()
    future.set_result(bucket.buffer().div_(dist.get_world_size(group)))  # the average, as DDP's default
    return future


def fixed_layout_ddp(module, **ddp_kwargs):
    """`DistributedDataParallel(module, **ddp_kwargs)` with `per_parameter_allreduce` as its comm hook.

    Its gradients are bit-identical at every step whatever DDP's bucket layout, so that a run resumed from a
    checkpoint (whose first step uses DDP's first-iteration layout) continues exactly as a run that never stopped.
    Exactness still needs the same world size, the same backend and algorithm, and deterministic kernels.
    """
    from torch.nn.parallel import DistributedDataParallel

    model = DistributedDataParallel(module, **ddp_kwargs)
    model.register_comm_hook(ddp_kwargs.get("process_group"), per_parameter_allreduce)
    return model
