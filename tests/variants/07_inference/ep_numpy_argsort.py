# replaces: dispatch_plan
# differs: numpy: a stable argsort of the negated logits (float64), slots counted in a numpy array, numpy ints in
#   the tuples; the plan filled choice by choice with an index loop
import numpy as np


def dispatch_plan(router_logits, k, capacity, experts_per_rank):
    if not isinstance(router_logits, torch.Tensor) or len(router_logits.shape) != 2:
        raise ValueError("router_logits must be 2-D")
    x = router_logits.double().numpy()
    n = x.shape[1]
    if type(k) is not int or k < 1 or k > n:
        raise ValueError("k out of range")
    if type(capacity) is not int or capacity < 0:
        raise ValueError("capacity must be >= 0")
    if type(experts_per_rank) is not int or experts_per_rank < 1 or n % experts_per_rank:
        raise ValueError("experts_per_rank must divide the experts")
    top = np.argsort(-x, axis=1, kind="stable")[:, :k]
    used = np.zeros(n, dtype=np.int64)
    plan = [[None] * k for _ in range(x.shape[0])]
    for j in range(k):
        for t in range(x.shape[0]):
            e = top[t, j]
            if used[e] < capacity:
                plan[t][j] = (e // experts_per_rank, e, used[e])
                used[e] += 1
    return plan
