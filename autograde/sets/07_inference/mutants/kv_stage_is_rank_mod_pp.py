# replaces: kv_cache_bytes_per_token
# wrong: numbers the devices stage-fastest: stage rank % pp, tensor-parallel rank rank // pp
# must-lose: kv_cache_bytes_uneven_stages
# must-keep: kv_cache_bytes_published_models, kv_cache_bytes_of_a_rank, kv_cache_bytes_rejects_bad_input,
#   shard_heads_contiguous_groups, shard_heads_replicates_kv_heads, decode_step_time_weights_bound,
#   decode_step_time_full_model, decode_step_time_rejects_bad_input, best_config_is_the_best,
#   best_config_slo_memory_ties, best_config_rejects_bad_input
@@ -7,5 +7,5 @@
     if not 0 <= rank < tp * pp:
         raise ValueError(f"rank {rank} is not one of the {tp * pp} devices of tp={tp} x pp={pp}")
-    stage, tp_rank = divmod(rank, tp)  # tensor-parallel ranks next to each other
+    tp_rank, stage = divmod(rank, pp)  # stages next to each other
     _, kv_heads = shard_heads(model["n_heads"], model["n_kv_heads"], tp, tp_rank)
     layers = n_layers // pp + (1 if stage < n_layers % pp else 0)  # the first n_layers % pp stages: one more
