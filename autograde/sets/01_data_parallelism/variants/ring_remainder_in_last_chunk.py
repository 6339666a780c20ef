# replaces: ring_all_reduce
# differs: its own chunking: N chunks of numel // N elements with the remainder all in the last one (flat.split with
#          a list of sizes, not tensor_split), so single ranks send other byte counts than the reference's
def ring_all_reduce(tensor, group=None):
    n = dist.get_world_size(group)
    if n == 1 or tensor.numel() == 0:
        return tensor
    me = dist.get_rank(group)
    to_global = (lambda r: r) if group is None else (lambda r: dist.get_global_rank(group, r))
    right, left = to_global((me + 1) % n), to_global((me - 1) % n)
    flat = tensor.view(-1) if tensor.is_contiguous() else tensor.flatten()
    base, extra = divmod(flat.numel(), n)
    sizes = [base] * (n - 1) + [base + extra]
    chunks = flat.split(sizes)
    scratch = torch.empty(base + extra, dtype=flat.dtype)

    def exchange(outgoing, incoming):
        ops = []
        if outgoing.numel():
            ops.append(dist.P2POp(dist.isend, outgoing, right, group))
        if incoming.numel():
            ops.append(dist.P2POp(dist.irecv, incoming, left, group))
        for request in dist.batch_isend_irecv(ops) if ops else []:
            request.wait()

    for step in range(n - 1):
        mine = chunks[(me - step - 1) % n]
        received = scratch[: mine.numel()]
        exchange(chunks[(me - step) % n], received)
        mine += received
    for step in range(n - 1):
        exchange(chunks[(me - step + 1) % n], chunks[(me - step) % n])
    if not tensor.is_contiguous():
        tensor.copy_(flat.view_as(tensor))
    return tensor
