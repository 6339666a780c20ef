# replaces: ring_all_reduce
# wrong: uses positions in the group as if they were global ranks (no dist.get_global_rank): fine without a group,
#        wrong peers with one
# must-lose: ring_all_reduce_subgroup
# must-keep: ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_bytes_match_cost, ring_all_reduce_cost_values, average_gradients_matches_single_process, average_gradients_frozen_and_tied
def ring_all_reduce(tensor, group=None):
    world_size = dist.get_world_size(group)
    if world_size == 1 or tensor.numel() == 0:
        return tensor
    me = dist.get_rank(group)
    right, left = (me + 1) % world_size, (me - 1) % world_size  # BUG: group ranks, but P2POp wants global ranks
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
    return tensor
