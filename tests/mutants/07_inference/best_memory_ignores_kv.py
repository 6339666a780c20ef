# replaces: best_config
# wrong: checks that the weights fit, not the KV cache of the batches in flight
# must-lose: best_config_is_the_best, best_config_slo_memory_ties
# must-keep: best_config_rejects_bad_input
@@ -2,13 +2,13 @@
                 prompt_len=None):
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
@@ -27,5 +27,5 @@
             kv_per_sequence = context_len * kv_cache_bytes_per_token(model, tp, pp, 0)
             batch = 1
-            while batch <= max_batch and weights + pp * batch * kv_per_sequence <= hardware["hbm_bytes"]:
+            while batch <= max_batch and weights <= hardware["hbm_bytes"]:
                 step = decode_step_time(model, hardware, tp, pp, batch, context_len)
                 if 1000 * step <= latency_slo_ms:
