# replaces: dispatch_plan
# differs: numpy: a stable argsort of the negated logits (float64), slots counted in a numpy array, numpy ints in
#   the tuples; the rows for this rank gathered per source with a stable argsort of expert * capacity + slot
import numpy as np


def dispatch_plan(router_logits, k, capacity, rank):
    if not isinstance(router_logits, torch.Tensor) or len(router_logits.shape) != 3:
        raise ValueError("router_logits must be 3-D")
    x = router_logits.double().numpy()
    ranks, tokens, n = x.shape
    if ranks < 1 or n % ranks:
        raise ValueError("router_logits: the ranks must divide the experts")
    if type(k) is not int or k < 1 or k > n:
        raise ValueError("k out of range")
    if type(capacity) is not int or capacity < 0:
        raise ValueError("capacity must be >= 0")
    if type(rank) is not int or rank < 0 or rank >= ranks:
        raise ValueError("rank out of range")
    per = n // ranks
    out = []
    for s in range(ranks):
        top = np.argsort(-x[s], axis=1, kind="stable")[:, :k]
        used = np.zeros(n, dtype=np.int64)
        experts, slots, toks = [], [], []
        for j in range(k):
            for t in range(tokens):
                e = top[t, j]
                if used[e] < capacity:
                    experts.append(e)
                    slots.append(used[e])
                    toks.append(t)
                    used[e] += 1
        experts, slots, toks = np.array(experts, dtype=np.int64), np.array(slots, dtype=np.int64), np.array(toks)
        order = np.argsort(experts * (capacity + 1) + slots, kind="stable")
        for i in order:
            if experts[i] // per == rank:
                out.append((np.int64(s), toks[i], experts[i]))
    return out
