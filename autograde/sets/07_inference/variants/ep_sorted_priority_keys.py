# replaces: dispatch_plan
# differs: every (source, choice, token) triple sorted by its priority key, then grouped by (source, expert): the
#   first `capacity` of each group get slots 0, 1, ...; the output one sort by (source, expert, slot); divmod for
#   the rank; the checks in another order, messages by f-string
from itertools import groupby


def dispatch_plan(router_logits, k, capacity, rank):
    if not (isinstance(router_logits, torch.Tensor) and router_logits.dim() == 3):
        raise ValueError(f"router_logits: a 3-D tensor please, not {type(router_logits).__name__}")
    ranks, _, experts = router_logits.shape
    if type(rank) is not int or not 0 <= rank < ranks:
        raise ValueError(f"rank={rank!r} is not a rank")
    if experts % ranks:
        raise ValueError(f"router_logits: {experts} experts on {ranks} ranks")
    if type(capacity) is not int or capacity < 0:
        raise ValueError(f"capacity={capacity!r}")
    if type(k) is not int or not 1 <= k <= experts:
        raise ValueError(f"k={k!r}")
    wanted = []  # (source, expert, choice, token): within a (source, expert), sorted by priority
    for source, rows in enumerate(router_logits.tolist()):
        for token, row in enumerate(rows):
            ranked = sorted(range(experts), key=lambda e: (-row[e], e))
            wanted += [(source, expert, choice, token) for choice, expert in enumerate(ranked[:k])]
    wanted.sort()
    out = []
    for (source, expert), group in groupby(wanted, key=lambda w: w[:2]):
        owner, _ = divmod(expert, experts // ranks)
        if owner == rank:
            out += [(source, token, expert) for _, _, _, token in list(group)[:capacity]]
    return out
