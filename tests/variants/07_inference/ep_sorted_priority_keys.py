# replaces: dispatch_plan
# differs: every (choice, token) pair sorted by its priority key, then grouped by expert: the first `capacity` of
#   each group get slots 0, 1, ...; divmod for the rank; the checks in another order, messages by f-string
def dispatch_plan(router_logits, k, capacity, experts_per_rank):
    if not isinstance(router_logits, torch.Tensor) or router_logits.dim() != 2:
        raise ValueError(f"router_logits has {getattr(router_logits, 'ndim', '?')} dimensions, not 2")
    n_experts = router_logits.shape[1]
    if type(experts_per_rank) is not int or experts_per_rank < 1 or n_experts % experts_per_rank:
        raise ValueError(f"experts_per_rank={experts_per_rank!r} must be a positive divisor of {n_experts}")
    if type(capacity) is not int or capacity < 0:
        raise ValueError(f"capacity={capacity!r} must be an int >= 0")
    if type(k) is not int or not 0 < k <= n_experts:
        raise ValueError(f"k={k!r} must be in [1, {n_experts}]")
    logits = router_logits.tolist()
    choice = {(t, j): e for t, row in enumerate(logits)
              for j, e in enumerate(sorted(range(n_experts), key=lambda e: (-row[e], e))[:k])}
    by_expert = {}
    for t, j in sorted(choice, key=lambda tj: (tj[1], tj[0])):
        by_expert.setdefault(choice[t, j], []).append((t, j))
    plan = [[None] * k for _ in logits]
    for e, queue in by_expert.items():
        for slot, (t, j) in enumerate(queue[:capacity]):
            plan[t][j] = (divmod(e, experts_per_rank)[0], e, slot)
    return plan
