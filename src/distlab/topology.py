"""Who is who among the ranks: this process's rank (0 without a process group), a group rank's global rank, and the
table of `torch.distributed`'s operations (which are point-to-point, which collective, which argument is the input).

    rank_or_zero(group), world_size_or_one(group)   # (0, 1) outside a launch: one rank of one
    global_rank(group, group_rank)                  # what a peer is called in every group
    op_spec(func)                                   # a dispatcher operator -> (public name, kind, input position)

Imports no torch at its top (`torch.distributed` is imported where it is used, a dictionary look-up once imported):
`launching._where` and `faults`, which run where torch may not be imported yet, use it as `comm`, `timeline` and
`models` do.
"""
from __future__ import annotations

import os

SENDS = {"send", "isend", "send_object_list"}
RECEIVES = {"recv", "irecv", "recv_object_list"}
POINT_TO_POINT = SENDS | RECEIVES

SEND, RECV, RECV_ANY, COLLECTIVE, BARRIER = "send", "recv", "recv_any", "collective", "barrier"
# The dispatcher's communication operators -> (public name when no public function is on the stack, kind, position
# of the input argument: what this rank hands in).
C10D_OPS = {
    "send": ("send", SEND, 0), "recv_": ("recv", RECV, None), "recv_any_source_": ("recv", RECV_ANY, None),
    "barrier": ("barrier", BARRIER, None), "monitored_barrier_": ("monitored_barrier", BARRIER, None),
    "allreduce_": ("all_reduce", COLLECTIVE, 0), "allreduce_coalesced_": ("all_reduce_coalesced", COLLECTIVE, 0),
    "allgather_": ("all_gather", COLLECTIVE, 1), "_allgather_base_": ("all_gather_into_tensor", COLLECTIVE, 1),
    "allgather_coalesced_": ("all_gather_coalesced", COLLECTIVE, 1),
    "allgather_into_tensor_coalesced_": ("all_gather_into_tensor", COLLECTIVE, 1),
    "reduce_scatter_": ("reduce_scatter", COLLECTIVE, 1),
    "_reduce_scatter_base_": ("reduce_scatter_tensor", COLLECTIVE, 1),
    "reduce_scatter_tensor_coalesced_": ("reduce_scatter_tensor", COLLECTIVE, 1),
    "alltoall_": ("all_to_all", COLLECTIVE, 1), "alltoall_base_": ("all_to_all_single", COLLECTIVE, 1),
    "broadcast_": ("broadcast", COLLECTIVE, 0), "reduce_": ("reduce", COLLECTIVE, 0),
    "gather_": ("gather", COLLECTIVE, 1), "scatter_": ("scatter", COLLECTIVE, 1),
}
# Functional collectives (torch.distributed._functional_collectives, DTensor): they return their output.
FUNCTIONAL_OPS = {
    "all_reduce": "all_reduce", "all_reduce_": "all_reduce", "all_reduce_coalesced": "all_reduce",
    "all_reduce_coalesced_": "all_reduce", "all_gather_into_tensor": "all_gather_into_tensor",
    "all_gather_into_tensor_coalesced": "all_gather_into_tensor",
    "all_gather_into_tensor_out": "all_gather_into_tensor",
    "reduce_scatter_tensor": "reduce_scatter_tensor", "reduce_scatter_tensor_coalesced": "reduce_scatter_tensor",
    "reduce_scatter_tensor_out": "reduce_scatter_tensor", "all_to_all_single": "all_to_all_single",
    "broadcast": "broadcast", "broadcast_": "broadcast",
}


def op_spec(func):
    """(fallback name, kind, input position) for a communication operator, None for any other operator."""
    namespace, _, name = getattr(getattr(func, "_schema", None), "name", "").partition("::")
    if namespace == "c10d":
        return C10D_OPS.get(name)
    if namespace in ("_c10d_functional", "_c10d_functional_autograd") and name in FUNCTIONAL_OPS:
        return FUNCTIONAL_OPS[name], COLLECTIVE, 0
    return None


def global_rank(group, group_rank: int) -> int:
    """The global rank of the rank `group_rank` of `group` (a process group; None: the default group, whose ranks are
    the global ranks). Raises ValueError for a group torch.distributed does not know or a rank not in it."""
    if group is None:
        return group_rank
    import torch.distributed as dist
    return dist.get_global_rank(group, group_rank)


def _initialized() -> bool:
    import torch.distributed as dist
    return dist.is_available() and dist.is_initialized()


def rank_or_zero(group=None) -> int:
    """This process's rank in `group` (None: its global rank); 0 without a process group."""
    import torch.distributed as dist
    return dist.get_rank(group) if _initialized() else 0


def world_size_or_one(group=None) -> int:
    """The number of ranks in `group` (None: every rank); 1 without a process group."""
    import torch.distributed as dist
    return dist.get_world_size(group) if _initialized() else 1


def launched_rank() -> int:
    """The rank of this process: from the process group if there is one, else torchrun's RANK, else 0 (also where
    torch is not installed)."""
    try:
        if _initialized():
            return rank_or_zero()
    except ImportError:
        pass
    return int(os.environ.get("RANK", "0"))
