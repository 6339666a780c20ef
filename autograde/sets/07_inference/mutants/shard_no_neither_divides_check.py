# replaces: shard_heads
# wrong: accepts tp and n_kv_heads where neither divides the other (a rank would hold part of a KV head)
# must-lose: shard_heads_rejects_bad_input
# must-keep: shard_heads_contiguous_groups, shard_heads_replicates_kv_heads,
#   kv_cache_bytes_of_a_rank, kv_cache_bytes_uneven_stages, kv_cache_bytes_rejects_bad_input
@@ -8,6 +8,4 @@
     if n_heads % n_kv_heads:
         raise ValueError(f"n_kv_heads={n_kv_heads} does not divide n_heads={n_heads}")
-    if tp % n_kv_heads and n_kv_heads % tp:
-        raise ValueError(f"tp={tp} and n_kv_heads={n_kv_heads}: neither divides the other")
     if not 0 <= rank < tp:
         raise ValueError(f"rank {rank} is not one of the {tp} ranks")
