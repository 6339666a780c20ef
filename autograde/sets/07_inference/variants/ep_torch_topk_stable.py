# replaces: dispatch_plan
# differs: torch.argsort(stable=True) on the negated logits, slot counters in a tensor; every source's whole send
#   buffer built (for all destinations), then this rank's rows taken from each; prints how many choices were dropped
def dispatch_plan(router_logits, k, capacity, rank):
    if not isinstance(router_logits, torch.Tensor) or router_logits.dim() != 3:
        raise ValueError("router_logits must be [ranks, tokens, experts]")
    R, T, E = router_logits.shape
    if R < 1 or E % R:
        raise ValueError("router_logits: ranks must divide experts")
    if type(k) is not int or not 1 <= k <= E:
        raise ValueError("k must be in 1..E")
    if type(capacity) is not int or capacity < 0:
        raise ValueError("capacity must be >= 0")
    if type(rank) is not int or not 0 <= rank < R:
        raise ValueError("rank must be in 0..R-1")
    per, dropped, mine = E // R, 0, []
    for src in range(R):
        order = torch.argsort(-router_logits[src], dim=1, stable=True)[:, :k]
        filled = torch.zeros(E, dtype=torch.long)
        buffers = {e: [] for e in range(E)}   # the send buffer, by expert; slot = position
        for j in range(k):
            for t in range(T):
                e = int(order[t, j])
                if int(filled[e]) < capacity:
                    buffers[e].append(t)
                    filled[e] += 1
                else:
                    dropped += 1
        mine += [(src, t, e) for e in range(rank * per, (rank + 1) * per) for t in buffers[e]]
    print(f"{dropped} choices dropped")
    return mine
