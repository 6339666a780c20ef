# replaces: dispatch_plan
# wrong: fills slots token by token (token 0's choices, then token 1's) instead of every first choice before any second choice
# must-lose: dispatch_plan_capacity_and_drops
# must-keep: dispatch_plan_routes_top_k, dispatch_plan_rejects_bad_input
def dispatch_plan(router_logits, k, capacity, experts_per_rank):
    """For each token and each of its k choices: (rank, expert, slot), or None where the expert is full."""
    if not isinstance(router_logits, torch.Tensor) or router_logits.dim() != 2:
        raise ValueError(f"router_logits must be a 2-D tensor [tokens, experts], got {router_logits!r}")
    n_experts = router_logits.shape[1]
    if type(k) is not int or not 1 <= k <= n_experts:
        raise ValueError(f"k must be an int from 1 to the number of experts ({n_experts}), got {k!r}")
    if type(capacity) is not int or capacity < 0:
        raise ValueError(f"capacity must be a non-negative int, got {capacity!r}")
    if type(experts_per_rank) is not int or experts_per_rank < 1 or n_experts % experts_per_rank:
        raise ValueError(f"experts_per_rank must be a positive int dividing {n_experts} experts, "
                         f"got {experts_per_rank!r}")
    rows = router_logits.tolist()
    choices = [sorted(range(n_experts), key=lambda e: (-row[e], e))[:k] for row in rows]  # ties: lower index
    filled = [0] * n_experts
    plan = [[None] * k for _ in rows]
    for token, chosen in enumerate(choices):        # token by token
        for j in range(k):
            expert = chosen[j]
            if filled[expert] < capacity:
                plan[token][j] = (expert // experts_per_rank, expert, filled[expert])
                filled[expert] += 1
    return plan
