# replaces: dispatch_plan
# differs: heapq.nlargest for the top k (equal keys keep their order: the lower index first), a Counter of slots,
#   the priority loop written with itertools.product over (choice, token)
import collections
import heapq
import itertools


def dispatch_plan(router_logits, k, capacity, experts_per_rank):
    if not isinstance(router_logits, torch.Tensor) or router_logits.dim() != 2:
        raise ValueError("router_logits is not a 2-D tensor")
    rows = router_logits.tolist()
    n_experts = router_logits.size(1)
    if not (type(k) is int and 0 < k <= n_experts):
        raise ValueError(f"bad k: {k}")
    if not (type(capacity) is int and capacity >= 0):
        raise ValueError(f"bad capacity: {capacity}")
    if not (type(experts_per_rank) is int and experts_per_rank > 0 and n_experts % experts_per_rank == 0):
        raise ValueError(f"bad experts_per_rank: {experts_per_rank}")
    top = [heapq.nlargest(k, range(n_experts), key=row.__getitem__) for row in rows]
    taken = collections.Counter()
    plan = [[None] * k for _ in rows]
    for j, t in itertools.product(range(k), range(len(rows))):
        e = top[t][j]
        if taken[e] < capacity:
            plan[t][j] = (e // experts_per_rank, e, taken[e])
            taken[e] += 1
    return plan
