# replaces: dispatch_plan
# differs: heapq.nlargest for the top k (equal keys keep their order: the lower index first), a Counter of slots,
#   the priority loop written with itertools.product over (choice, token); lists instead of tuples
import heapq
import itertools
from collections import Counter


def dispatch_plan(router_logits, k, capacity, rank):
    if not isinstance(router_logits, torch.Tensor) or router_logits.dim() != 3:
        raise ValueError("router_logits: expected [ranks, tokens, experts]")
    n_ranks, n_tokens, n_experts = router_logits.shape
    if not n_ranks or n_experts % n_ranks:
        raise ValueError("router_logits: experts not divisible among ranks")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n_experts:
        raise ValueError(f"bad k {k}")
    if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 0:
        raise ValueError(f"bad capacity {capacity}")
    if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < n_ranks:
        raise ValueError(f"bad rank {rank}")
    result = []
    for source in range(n_ranks):
        rows = router_logits[source].tolist()
        top = [heapq.nlargest(k, range(n_experts), key=lambda e, r=r: r[e]) for r in rows]
        slots, sent = Counter(), []
        for j, t in itertools.product(range(k), range(n_tokens)):
            e = top[t][j]
            if slots[e] < capacity:
                sent.append([e, slots[e], t])
                slots[e] += 1
        sent.sort()
        result.extend([source, t, e] for e, _, t in sent if e // (n_experts // n_ranks) == rank)
    return result
