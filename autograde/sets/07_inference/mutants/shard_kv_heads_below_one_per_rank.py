# replaces: shard_heads
# wrong: splits the KV heads over the ranks like the query heads: with tp > n_kv_heads a rank gets no KV head at all
# must-lose: shard_heads_replicates_kv_heads, tp_decode_matches_single_process
# must-keep: shard_heads_contiguous_groups, shard_heads_rejects_bad_input,
#   kv_cache_bytes_of_a_rank, kv_cache_bytes_uneven_stages, kv_cache_bytes_rejects_bad_input
@@ -14,4 +14,4 @@
     per_rank, group = n_heads // tp, n_heads // n_kv_heads
     query_heads = list(range(rank * per_rank, (rank + 1) * per_rank))
-    kv_heads = list(range(query_heads[0] // group, query_heads[-1] // group + 1))
+    kv_heads = list(range(rank * n_kv_heads // tp, (rank + 1) * n_kv_heads // tp))
     return query_heads, kv_heads
