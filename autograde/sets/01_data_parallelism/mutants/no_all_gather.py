# replaces: ring_all_reduce
# wrong: stops after the reduce-scatter phase: each rank holds the full sum of one chunk only, the rest is partial
# must-lose: ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_bytes_match_cost
# must-keep: ring_all_reduce_cost_values, average_gradients_matches_single_process, average_gradients_frozen_and_tied
def ring_all_reduce(tensor, group=None):
    world_size = dist.get_world_size(group)
    if world_size == 1 or tensor.numel() == 0:
        return tensor
    me = dist.get_rank(group)
    peer = (lambda r: r) if group is None else (lambda r: dist.get_global_rank(group, r))
    right, left = peer((me + 1) % world_size), peer((me - 1) % world_size)
    chunks = tensor.view(-1).tensor_split(world_size)
    for step in range(world_size - 1):
        send_chunk, recv_chunk = chunks[(me - step) % world_size], chunks[(me - step - 1) % world_size]
        incoming = torch.empty_like(recv_chunk)
        ops = [dist.P2POp(dist.isend, send_chunk, right, group)] if send_chunk.numel() else []
        ops += [dist.P2POp(dist.irecv, incoming, left, group)] if incoming.numel() else []
        for request in dist.batch_isend_irecv(ops) if ops else []:
            request.wait()
        recv_chunk.add_(incoming)
    return tensor  # BUG: the all-gather phase is missing
