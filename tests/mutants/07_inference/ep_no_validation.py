# replaces: dispatch_plan
# wrong: raises nothing on bad arguments (k = 0, a capacity of -1, 2-D logits, a rank out of range...)
# must-lose: dispatch_plan_rejects_bad_input
# must-keep: dispatch_plan_routes_top_k, dispatch_plan_capacity_and_drops
def dispatch_plan(router_logits, k, capacity, rank):
    """(source_rank, token, expert) of each row that arrives at rank `rank` in the dispatch all-to-all, in order."""
    ranks, _, n_experts = router_logits.shape
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
        arrived += [(source, token, expert) for expert, _, token in sorted(kept)  # sent by expert, then slot
                    if expert // experts_per_rank == rank]
    return arrived
