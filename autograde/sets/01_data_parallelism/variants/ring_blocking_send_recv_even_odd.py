# replaces: ring_all_reduce
# differs: blocking dist.send / dist.recv instead of batch_isend_irecv: even ranks send first, odd ranks receive first
#          (with an odd number of ranks an odd rank still breaks the cycle), chunks from torch.tensor_split
def ring_all_reduce(tensor, group=None):
    n = dist.get_world_size(group)
    if n == 1 or tensor.numel() == 0:
        return tensor
    me = dist.get_rank(group)
    to_global = (lambda r: r) if group is None else (lambda r: dist.get_global_rank(group, r))
    right, left = to_global((me + 1) % n), to_global((me - 1) % n)
    flat = tensor.view(-1) if tensor.is_contiguous() else tensor.flatten()
    chunks = torch.tensor_split(flat, n)

    def exchange(outgoing, incoming):
        if me % 2 == 0:
            if outgoing.numel():
                dist.send(outgoing, right, group=group)
            if incoming.numel():
                dist.recv(incoming, left, group=group)
        else:
            if incoming.numel():
                dist.recv(incoming, left, group=group)
            if outgoing.numel():
                dist.send(outgoing, right, group=group)

    buffer = torch.empty_like(chunks[0])
    for step in range(n - 1):
        receiving = chunks[(me - step - 1) % n]
        incoming = buffer[: receiving.numel()]
        exchange(chunks[(me - step) % n], incoming)
        receiving += incoming
    for step in range(n - 1):
        exchange(chunks[(me - step + 1) % n], chunks[(me - step) % n])
    if not tensor.is_contiguous():
        tensor.copy_(flat.view_as(tensor))
    return tensor
