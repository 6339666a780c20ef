# replaces: shard_heads
# wrong: deals the query heads out round-robin (rank, rank + tp, ...) instead of contiguous blocks
# must-lose: shard_heads_contiguous_groups
# must-keep: shard_heads_rejects_bad_input,
#   kv_cache_bytes_of_a_rank, kv_cache_bytes_uneven_stages, kv_cache_bytes_rejects_bad_input
@@ -13,5 +13,5 @@
         raise ValueError(f"rank {rank} is not one of the {tp} ranks")
     per_rank, group = n_heads // tp, n_heads // n_kv_heads
-    query_heads = list(range(rank * per_rank, (rank + 1) * per_rank))
-    kv_heads = list(range(query_heads[0] // group, query_heads[-1] // group + 1))
+    query_heads = list(range(rank, n_heads, tp))
+    kv_heads = sorted({h // group for h in query_heads})
     return query_heads, kv_heads
