# replaces: dispatch_plan
# differs: GShard's vectorized form per source rank: a stable descending sort (ties keep the lower index), a one-hot
#   of the choices laid out choice-major, its cumulative sum gives each choice's slot; rows picked with a mask and
#   ordered by torch.argsort on expert * tokens * k + slot; validation with torch's own checks
def dispatch_plan(router_logits, k, capacity, rank):
    if not torch.is_tensor(router_logits) or router_logits.ndim != 3:
        raise ValueError("router_logits must be a 3-D tensor")
    ranks, tokens, n_experts = router_logits.shape
    if ranks == 0 or n_experts % ranks != 0:
        raise ValueError("router_logits: number of ranks must divide number of experts")
    if not isinstance(k, int) or isinstance(k, bool) or not 0 < k <= n_experts:
        raise ValueError("k must be between 1 and the number of experts")
    if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 0:
        raise ValueError("capacity must be a non-negative integer")
    if not isinstance(rank, int) or isinstance(rank, bool) or not 0 <= rank < ranks:
        raise ValueError("rank must be one of the ranks")
    per = n_experts // ranks
    rows = []
    for source in range(ranks):
        expert = router_logits[source].sort(dim=-1, descending=True, stable=True).indices[:, :k]  # [T, k]
        one_hot = torch.nn.functional.one_hot(expert.T.reshape(-1), n_experts)     # choice 0 of all tokens, then 1
        slot = ((one_hot.cumsum(0) - 1) * one_hot).sum(-1)                        # [k * T]
        flat_expert, token = expert.T.reshape(-1), torch.arange(tokens).repeat(k)
        keep = (slot < capacity) & (flat_expert // per == rank)
        key = flat_expert * tokens * k + slot
        for i in torch.argsort(torch.where(keep, key, -1)).tolist():
            if keep[i]:
                rows.append((source, int(token[i]), int(flat_expert[i])))
    return rows
