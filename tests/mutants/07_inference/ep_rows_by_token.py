# replaces: dispatch_plan
# wrong: orders a source's rows by expert, then token, instead of expert, then slot (priority)
# must-lose: dispatch_plan_capacity_and_drops
# must-keep: dispatch_plan_routes_top_k, dispatch_plan_rejects_bad_input
def dispatch_plan(router_logits, k, capacity, rank):
    """(source_rank, token, expert) of each row that arrives at rank `rank` in the dispatch all-to-all, in order."""
    if not isinstance(router_logits, torch.Tensor) or router_logits.dim() != 3:
        raise ValueError(f"router_logits must be a 3-D tensor [ranks, tokens, experts], got {router_logits!r}")
    ranks, _, n_experts = router_logits.shape
    if ranks == 0 or n_experts % ranks:
        raise ValueError(f"router_logits: {ranks} ranks do not share {n_experts} experts evenly")
    if type(k) is not int or not 1 <= k <= n_experts:
        raise ValueError(f"k must be an int from 1 to the number of experts ({n_experts}), got {k!r}")
    if type(capacity) is not int or capacity < 0:
        raise ValueError(f"capacity must be a non-negative int, got {capacity!r}")
    if type(rank) is not int or not 0 <= rank < ranks:
        raise ValueError(f"rank must be an int from 0 to {ranks - 1}, got {rank!r}")
    experts_per_rank = n_experts // ranks
    arrived = []
    for source, rows in enumerate(router_logits.tolist()):   # each source rank: its own tokens, its own slots
        choices = [sorted(range(n_experts), key=lambda e: (-row[e], e))[:k] for row in rows]  # ties: lower index
        filled, kept = [0] * n_experts, []
        for j in range(k):                              # every token's first choice, then every second choice, ...
            for token, chosen in enumerate(choices):    # ... in token order
                expert = chosen[j]
                if filled[expert] < capacity:
                    kept.append((expert, filled[expert], token))
                    filled[expert] += 1
        arrived += [(source, token, expert) for expert, _, token in sorted(kept, key=lambda c: (c[0], c[2]))  # sent by expert, then slot
                    if expert // experts_per_rank == rank]
    return arrived
