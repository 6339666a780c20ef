# replaces: kv_cache_bytes_per_token
# wrong: every stage holds n_layers // pp layers: the remainder's layers hold no cache
# must-lose: kv_cache_bytes_uneven_stages
# must-keep: kv_cache_bytes_published_models, kv_cache_bytes_of_a_rank, kv_cache_bytes_rejects_bad_input,
#   shard_heads_contiguous_groups, shard_heads_replicates_kv_heads, decode_step_time_weights_bound,
#   decode_step_time_full_model, decode_step_time_rejects_bad_input, best_config_is_the_best,
#   best_config_slo_memory_ties, best_config_rejects_bad_input
@@ -9,4 +9,4 @@
     stage, tp_rank = divmod(rank, tp)  # tensor-parallel ranks next to each other
     _, kv_heads = shard_heads(model["n_heads"], model["n_kv_heads"], tp, tp_rank)
-    layers = n_layers // pp + (1 if stage < n_layers % pp else 0)  # the first n_layers % pp stages: one more
+    layers = n_layers // pp
     return int(2 * layers * len(kv_heads) * model["head_dim"] * model["bytes_per_param"])
