# replaces: dispatch_plan
# differs: the order from torch.argsort(stable=True) on the negated logits, slot counters in a tensor, the plan
#   built token by token afterwards from a dict keyed by (token, choice); prints how many choices were dropped
def dispatch_plan(router_logits, k, capacity, experts_per_rank):
    if not torch.is_tensor(router_logits) or router_logits.dim() != 2:
        raise ValueError("router_logits must be [tokens, experts]")
    E = router_logits.shape[-1]
    for name, value, ok in [("k", k, isinstance(k, int) and 1 <= k <= E),
                            ("capacity", capacity, isinstance(capacity, int) and capacity >= 0),
                            ("experts_per_rank", experts_per_rank,
                             isinstance(experts_per_rank, int) and experts_per_rank >= 1 and E % experts_per_rank == 0)]:
        if not ok:
            raise ValueError(f"{name} = {value!r} is not allowed")
    ranked = torch.argsort(-router_logits, dim=1, stable=True)[:, :k].tolist()
    counts = torch.zeros(E, dtype=torch.long)
    placed = {}
    for j in range(k):
        for t, experts in enumerate(ranked):
            e = experts[j]
            if counts[e] < capacity:
                placed[t, j] = (e // experts_per_rank, e, int(counts[e]))
                counts[e] += 1
    print(f"dispatch_plan: {len(ranked) * k - len(placed)} of {len(ranked) * k} choices dropped")
    return [[placed.get((t, j)) for j in range(k)] for t in range(len(ranked))]
