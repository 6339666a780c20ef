# replaces: shard_heads
# differs: numpy: np.array_split of the heads, np.unique of their groups; returns lists of numpy integers; the
#   validation raises a subclass of ValueError
import numpy as np


class LayoutError(ValueError):
    pass


def shard_heads(n_heads, n_kv_heads, tp, rank):
    """Query heads (contiguous) and KV heads (those they read) that rank `rank` of `tp` computes and caches."""
    if min(n_heads, n_kv_heads, tp) < 1 or not 0 <= rank < tp:
        raise LayoutError(f"bad sizes or rank: n_heads={n_heads}, n_kv_heads={n_kv_heads}, tp={tp}, rank={rank}")
    if np.remainder(n_heads, tp) or np.remainder(n_heads, n_kv_heads):
        raise LayoutError(f"{tp} ranks and {n_kv_heads} KV heads must both divide {n_heads} heads")
    if max(tp, n_kv_heads) % min(tp, n_kv_heads):
        raise LayoutError(f"tp={tp} and n_kv_heads={n_kv_heads} must divide one another")
    query = np.array_split(np.arange(n_heads), tp)[rank]
    kv = np.unique(query // (n_heads // n_kv_heads))
    return list(query), list(kv)
