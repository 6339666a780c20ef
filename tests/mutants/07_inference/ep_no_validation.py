# replaces: dispatch_plan
# wrong: raises nothing on bad arguments (k = 0, a capacity of -1, 1-D logits, ...)
# must-lose: dispatch_plan_rejects_bad_input
# must-keep: dispatch_plan_routes_top_k, dispatch_plan_capacity_and_drops
def dispatch_plan(router_logits, k, capacity, experts_per_rank):
    """For each token and each of its k choices: (rank, expert, slot), or None where the expert is full."""
    n_experts = router_logits.shape[-1]
    rows = router_logits.tolist()
    choices = [sorted(range(n_experts), key=lambda e: (-row[e], e))[:k] for row in rows]  # ties: lower index
    filled = [0] * n_experts
    plan = [[None] * k for _ in rows]
    for j in range(k):                              # every token's first choice, then every second choice, ...
        for token, chosen in enumerate(choices):    # ... in token order
            expert = chosen[j]
            if filled[expert] < capacity:
                plan[token][j] = (expert // experts_per_rank, expert, filled[expert])
                filled[expert] += 1
    return plan
