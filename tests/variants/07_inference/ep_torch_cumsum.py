# replaces: dispatch_plan
# differs: GShard's vectorized form: a stable descending sort of the logits (ties keep the lower index), a one-hot of
#   the choices laid out choice-major, its cumulative sum gives each choice's slot; validation with torch's own checks
def dispatch_plan(router_logits, k, capacity, experts_per_rank):
    if not torch.is_tensor(router_logits) or router_logits.ndim != 2:
        raise ValueError("router_logits: expected a 2-D tensor")
    tokens, experts = router_logits.shape
    if not isinstance(k, int) or isinstance(k, bool) or k < 1 or k > experts:
        raise ValueError(f"k={k!r} is not in 1..{experts}")
    if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 0:
        raise ValueError(f"capacity={capacity!r} is negative or not an int")
    if not isinstance(experts_per_rank, int) or experts_per_rank <= 0 or experts % experts_per_rank != 0:
        raise ValueError(f"experts_per_rank={experts_per_rank!r} does not divide {experts}")
    order = torch.sort(router_logits, dim=1, descending=True, stable=True).indices[:, :k]  # [tokens, k]
    one_hot = F.one_hot(order.T.reshape(-1), experts)                  # choice-major: all first choices first
    slot = ((one_hot.cumsum(0) - 1) * one_hot).sum(1).reshape(k, tokens).T
    return [[(int(e) // experts_per_rank, int(e), int(s)) if s < capacity else None
             for e, s in zip(order[t], slot[t])] for t in range(tokens)]
