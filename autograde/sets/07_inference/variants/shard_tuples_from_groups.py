# replaces: shard_heads
# differs: walks the KV groups and keeps those that overlap the rank's block; returns a tuple of two lists; prints
#   nothing, asserts nothing
def shard_heads(n_heads, n_kv_heads, tp, rank):
    """Query heads (contiguous) and KV heads (those they read) that rank `rank` of `tp` computes and caches."""
    sizes_ok = n_heads > 0 and n_kv_heads > 0 and tp > 0 and 0 <= rank < tp
    if not sizes_ok or n_heads % tp != 0 or n_heads % n_kv_heads != 0:
        raise ValueError("tp and n_kv_heads must divide n_heads, and rank must be in range(tp)")
    if n_kv_heads % tp != 0 and tp % n_kv_heads != 0:
        raise ValueError("one of tp and n_kv_heads must divide the other")
    size = n_heads // tp
    first, last = rank * size, rank * size + size  # [first, last)
    group = n_heads // n_kv_heads
    kv = [g for g in range(n_kv_heads) if g * group < last and first < (g + 1) * group]
    return [h for h in range(first, last)], kv
