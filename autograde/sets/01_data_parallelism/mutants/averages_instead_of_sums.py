# replaces: ring_all_reduce
# wrong: divides the sum by the world size (an average, not the sum dist.all_reduce computes; int64 cannot even hold it)
# must-lose: ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_subgroup
# must-keep: ring_all_reduce_cost_values, average_gradients_matches_single_process, average_gradients_frozen_and_tied
def ring_all_reduce(tensor, group=None):
    world_size = dist.get_world_size(group)
    if world_size == 1 or tensor.numel() == 0:
        return tensor
    me = dist.get_rank(group)
    peer = (lambda r: r) if group is None else (lambda r: dist.get_global_rank(group, r))
    right, left = peer((me + 1) % world_size), peer((me - 1) % world_size)
    chunks = tensor.view(-1).tensor_split(world_size)

    def exchange(send_chunk, recv_into):
        ops = [dist.P2POp(dist.isend, send_chunk, right, group)] if send_chunk.numel() else []
        ops += [dist.P2POp(dist.irecv, recv_into, left, group)] if recv_into.numel() else []
        for request in dist.batch_isend_irecv(ops) if ops else []:
            request.wait()

    for step in range(world_size - 1):
        recv_chunk = chunks[(me - step - 1) % world_size]
        incoming = torch.empty_like(recv_chunk)
        exchange(chunks[(me - step) % world_size], incoming)
        recv_chunk.add_(incoming)
    for step in range(world_size - 1):
        exchange(chunks[(me - step + 1) % world_size], chunks[(me - step) % world_size])
    return tensor.div_(world_size)  # BUG: an all-reduce sums; averaging is the caller's business
