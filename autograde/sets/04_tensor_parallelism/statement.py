"""Set 04's f and g as the statement defines them: the column and row layers are judged with these in the place of
the learner's (one mistake, one deduction: a wrong f costs f's cells, not the layers' too). Rank-side code, never in
the sandbox before a check needs it: `_common.statement_source` sends it with each launch of
`04_tensor_parallelism_ranks.rank_linear`, which runs it in a private namespace on each rank. Their signatures are the
statement's (tests/test_statement_standins.py).
"""

# === f_and_g
import torch
import torch.distributed as dist


class _StatementF(torch.autograd.Function):
    """f as Part 1 states it: the identity forward, an all-reduce (sum over the group) of the gradient backward."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        grad = grad.contiguous().clone()
        dist.all_reduce(grad, group=ctx.group)
        return grad, None


class _StatementG(torch.autograd.Function):
    """g as Part 1 states it: an all-reduce (sum over the group) forward, the identity for the gradient backward."""

    @staticmethod
    def forward(ctx, x, group):
        out = x.contiguous().clone()
        dist.all_reduce(out, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad, None


STAND_IN["copy_to_tp_region"] = lambda x, group=None: _StatementF.apply(x, group)  # noqa: F821 - the preamble's
STAND_IN["reduce_from_tp_region"] = lambda x, group=None: _StatementG.apply(x, group)  # noqa: F821
