# replaces: shard_heads
# wrong: deals the query heads out round-robin (rank, rank + tp, ...) instead of contiguous blocks
# must-lose: shard_heads_contiguous_groups
# must-keep: shard_heads_rejects_bad_input,
#   kv_cache_bytes_of_a_rank, kv_cache_bytes_uneven_stages, kv_cache_bytes_rejects_bad_input
def shard_heads(n_heads, n_kv_heads, tp, rank):
    """Query heads (contiguous) and KV heads (those they read) that rank `rank` of `tp` computes and caches."""
    for name, value in dict(n_heads=n_heads, n_kv_heads=n_kv_heads, tp=tp).items():
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    if n_heads % tp:
        raise ValueError(f"tp={tp} does not divide the {n_heads} query heads")
    if n_heads % n_kv_heads:
        raise ValueError(f"n_kv_heads={n_kv_heads} does not divide n_heads={n_heads}")
    if tp % n_kv_heads and n_kv_heads % tp:
        raise ValueError(f"tp={tp} and n_kv_heads={n_kv_heads}: neither divides the other")
    if not 0 <= rank < tp:
        raise ValueError(f"rank {rank} is not one of the {tp} ranks")
    per_rank, group = n_heads // tp, n_heads // n_kv_heads
    query_heads = list(range(rank, n_heads, tp))
    kv_heads = sorted({h // group for h in query_heads})
    return query_heads, kv_heads
