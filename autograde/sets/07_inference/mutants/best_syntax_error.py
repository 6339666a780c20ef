# replaces: best_config
# wrong: does not compile (a missing colon), so best_config is never defined
# must-zero: best_config_is_the_best, best_config_slo_memory_ties, best_config_fits_every_device,
#   best_config_rejects_bad_input, best_config_keeps_first_token_promise
# must-keep: kv_cache_bytes_published_models, shard_heads_contiguous_groups, tp_decode_matches_single_process,
#   decode_step_time_full_model
@@ -1,4 +1,4 @@
 def best_config(model, hardware, num_devices, latency_slo_ms, context_len, max_batch=1024, ttft_slo_ms=None,
-                prompt_len=None):
+                prompt_len=None)
     """The (tp, pp, replicas, batch) with the most tokens/s whose decode step keeps `latency_slo_ms` and whose
     weights and KV cache fit every device (and whose prefill keeps `ttft_slo_ms`, if given); None if none does."""
