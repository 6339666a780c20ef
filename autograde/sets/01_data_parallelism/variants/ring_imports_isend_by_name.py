# replaces: ring_all_reduce
# differs: imports isend, irecv, P2POp and batch_isend_irecv by name at the top of the cell, then the lesson's own
#          P2POp pattern (count_comm must count calls made through names imported before its block)
from torch.distributed import P2POp, batch_isend_irecv, get_global_rank, get_rank, get_world_size, irecv, isend


def ring_all_reduce(tensor, group=None):
    world_size = get_world_size(group)
    if world_size == 1 or tensor.numel() == 0:
        return tensor
    me = get_rank(group)
    ranks = [r if group is None else get_global_rank(group, r) for r in range(world_size)]
    right, left = ranks[(me + 1) % world_size], ranks[(me - 1) % world_size]
    flat = tensor.view(-1) if tensor.is_contiguous() else tensor.flatten()
    chunks = flat.tensor_split(world_size)
    incoming = torch.empty_like(chunks[0])

    def exchange(send_chunk, recv_into):
        ops = []
        if send_chunk.numel() > 0:
            ops.append(P2POp(isend, send_chunk, right, group))
        if recv_into.numel() > 0:
            ops.append(P2POp(irecv, recv_into, left, group))
        if ops:
            for request in batch_isend_irecv(ops):
                request.wait()

    for step in range(world_size - 1):
        recv_chunk = chunks[(me - step - 1) % world_size]
        buffer = incoming[: recv_chunk.numel()]
        exchange(chunks[(me - step) % world_size], buffer)
        recv_chunk.add_(buffer)
    for step in range(world_size - 1):
        exchange(chunks[(me - step + 1) % world_size], chunks[(me - step) % world_size])
    if not tensor.is_contiguous():
        tensor.copy_(flat.view_as(tensor))
    return tensor
