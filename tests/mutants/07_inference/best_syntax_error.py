# replaces: best_config
# wrong: does not compile (a missing colon), so best_config is never defined
# must-zero: best_config_is_the_best, best_config_slo_memory_ties, best_config_rejects_bad_input,
#   best_config_keeps_first_token_promise
# must-keep: kv_cache_bytes_published_models, shard_heads_contiguous_groups, tp_decode_matches_single_process,
#   decode_step_time_full_model
@@ -1,14 +1,14 @@
 def best_config(model, hardware, num_devices, latency_slo_ms, context_len, max_batch=1024, ttft_slo_ms=None,
-                prompt_len=None):
+                prompt_len=None)
     """The (tp, pp, replicas, batch) with the most tokens/s whose decode step keeps `latency_slo_ms` and whose
-    weights and KV cache fit each device (and whose prefill keeps `ttft_slo_ms`, if given); None if none does."""
+    weights and KV cache fit each device; None if none does."""
+    if (ttft_slo_ms is None) != (prompt_len is None):
+        raise ValueError(f"give both ttft_slo_ms and prompt_len, or neither: got {ttft_slo_ms!r} and {prompt_len!r}")
+    if ttft_slo_ms is not None and not (ttft_slo_ms > 0 and prompt_len > 0):
+        raise ValueError(f"ttft_slo_ms and prompt_len must be positive, got {ttft_slo_ms!r} and {prompt_len!r}")
     for name, value in dict(num_devices=num_devices, latency_slo_ms=latency_slo_ms, context_len=context_len,
                             max_batch=max_batch).items():
         if not value > 0:
             raise ValueError(f"{name} must be positive, got {value!r}")
-    if (ttft_slo_ms is None) != (prompt_len is None):
-        raise ValueError(f"give both ttft_slo_ms and prompt_len, or neither: got {ttft_slo_ms!r} and {prompt_len!r}")
-    if ttft_slo_ms is not None and not (ttft_slo_ms > 0 and prompt_len > 0):
-        raise ValueError(f"ttft_slo_ms and prompt_len must be positive, got {ttft_slo_ms!r} and {prompt_len!r}")
     decode_step_time(model, hardware, 1, 1, 1, context_len)  # a bad model or device raises here
     found = []
