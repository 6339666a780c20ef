# replaces: ring_all_reduce
# differs: posts dist.isend and dist.irecv itself (no P2POp, no batch_isend_irecv) and waits on both requests;
#          works on a contiguous copy of a non-contiguous tensor and copies the result back
def ring_all_reduce(tensor, group=None):
    size = dist.get_world_size(group)
    if size == 1 or tensor.numel() == 0:
        return tensor
    rank = dist.get_rank(group)
    right = (rank + 1) % size
    left = (rank - 1) % size
    if group is not None:
        right, left = dist.get_global_rank(group, right), dist.get_global_rank(group, left)
    work = tensor if tensor.is_contiguous() else tensor.contiguous()
    chunks = work.view(-1).tensor_split(size)

    def step(send_index, recv_index, accumulate):
        send_chunk, recv_chunk = chunks[send_index], chunks[recv_index]
        target = torch.empty_like(recv_chunk) if accumulate else recv_chunk
        requests = []
        if send_chunk.numel():
            requests.append(dist.isend(send_chunk, dst=right, group=group))
        if recv_chunk.numel():
            requests.append(dist.irecv(target, src=left, group=group))
        for request in requests:
            request.wait()
        if accumulate:
            recv_chunk += target

    for s in range(size - 1):
        step((rank - s) % size, (rank - s - 1) % size, accumulate=True)
    for s in range(size - 1):
        step((rank - s + 1) % size, (rank - s) % size, accumulate=False)
    if work is not tensor:
        tensor.copy_(work)
    return tensor
