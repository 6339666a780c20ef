# replaces: ring_all_reduce
# wrong: a ring, but of whole tensors: N-1 steps each passing the full tensor on, so every rank sends (N-1) * nbytes
#        instead of 2(N-1)/N * nbytes (and each rank adds in its own order, so float results may differ by rank)
# must-lose: ring_all_reduce_bytes_match_cost
# must-keep: ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_subgroup, ring_all_reduce_cost_values, average_gradients_matches_single_process, average_gradients_frozen_and_tied
def ring_all_reduce(tensor, group=None):
    world_size = dist.get_world_size(group)
    if world_size == 1 or tensor.numel() == 0:
        return tensor
    me = dist.get_rank(group)
    peer = (lambda r: r) if group is None else (lambda r: dist.get_global_rank(group, r))
    right, left = peer((me + 1) % world_size), peer((me - 1) % world_size)
    passing = tensor.clone()
    total = tensor.clone()
    for _ in range(world_size - 1):  # BUG: whole tensors travel, not chunks
        incoming = torch.empty_like(passing)
        ops = [dist.P2POp(dist.isend, passing, right, group), dist.P2POp(dist.irecv, incoming, left, group)]
        for request in dist.batch_isend_irecv(ops):
            request.wait()
        total += incoming
        passing = incoming
    tensor.copy_(total)
    return tensor
