# replaces: ring_all_reduce
# differs: sends a copy of each chunk made with torch.tensor(chunk), which makes PyTorch print a UserWarning on every
#          rank ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone()...")
def ring_all_reduce(tensor, group=None):
    world_size = dist.get_world_size(group)
    if world_size == 1 or tensor.numel() == 0:
        return tensor
    me = dist.get_rank(group)
    peer = (lambda r: r) if group is None else (lambda r: dist.get_global_rank(group, r))
    right, left = peer((me + 1) % world_size), peer((me - 1) % world_size)
    flat = tensor.view(-1) if tensor.is_contiguous() else tensor.flatten()
    chunks = flat.tensor_split(world_size)

    def exchange(send_chunk, recv_into):
        ops = []
        if send_chunk.numel() > 0:
            ops.append(dist.P2POp(dist.isend, torch.tensor(send_chunk), right, group))  # a copy: warns
        if recv_into.numel() > 0:
            ops.append(dist.P2POp(dist.irecv, recv_into, left, group))
        if ops:
            for request in dist.batch_isend_irecv(ops):
                request.wait()

    for step in range(world_size - 1):
        recv_chunk = chunks[(me - step - 1) % world_size]
        incoming = torch.empty_like(recv_chunk)
        exchange(chunks[(me - step) % world_size], incoming)
        recv_chunk.add_(incoming)
    for step in range(world_size - 1):
        exchange(chunks[(me - step + 1) % world_size], chunks[(me - step) % world_size])
    if not tensor.is_contiguous():
        tensor.copy_(flat.view_as(tensor))
    return tensor
