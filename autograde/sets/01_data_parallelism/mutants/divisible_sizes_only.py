# replaces: ring_all_reduce
# wrong: cuts the tensor with view(world_size, -1), which only works when the world size divides the element count
# must-lose: ring_all_reduce_uneven_sizes
# must-keep: ring_all_reduce_matches_builtin, ring_all_reduce_point_to_point_only, ring_all_reduce_cost_values, average_gradients_matches_single_process, average_gradients_frozen_and_tied
def ring_all_reduce(tensor, group=None):
    world_size = dist.get_world_size(group)
    if world_size == 1:
        return tensor
    me = dist.get_rank(group)
    peer = (lambda r: r) if group is None else (lambda r: dist.get_global_rank(group, r))
    right, left = peer((me + 1) % world_size), peer((me - 1) % world_size)
    chunks = tensor.view(world_size, -1)  # BUG: raises unless world_size divides tensor.numel()
    incoming = torch.empty_like(chunks[0])
    for step in range(world_size - 1):
        ops = [dist.P2POp(dist.isend, chunks[(me - step) % world_size], right, group),
               dist.P2POp(dist.irecv, incoming, left, group)]
        for request in dist.batch_isend_irecv(ops):
            request.wait()
        chunks[(me - step - 1) % world_size].add_(incoming)
    for step in range(world_size - 1):
        ops = [dist.P2POp(dist.isend, chunks[(me - step + 1) % world_size], right, group),
               dist.P2POp(dist.irecv, chunks[(me - step) % world_size], left, group)]
        for request in dist.batch_isend_irecv(ops):
            request.wait()
    return tensor
