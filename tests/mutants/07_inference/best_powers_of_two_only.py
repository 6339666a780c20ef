# replaces: best_config
# wrong: searches tp and pp among powers of two only: TP5 for a 40-head model, or PP5 for 80 layers, is never tried
# must-lose: best_config_is_the_best
# must-keep: best_config_slo_memory_ties, best_config_rejects_bad_input, decode_step_time_full_model
@@ -2,17 +2,18 @@
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
-    for tp in range(1, num_devices + 1):
-        for pp in range(1, num_devices // tp + 1):
+    powers = [2**k for k in range(num_devices.bit_length())]  # BUG: 5 heads' worth or 5 stages are never tried
+    for tp in powers:
+        for pp in powers:
             if num_devices % (tp * pp) or model["n_layers"] % pp:
                 continue
@@ -38,3 +39,3 @@
     most = max(c["tokens_per_s"] for c in found)
     ties = [c for c in found if c["tokens_per_s"] >= most * (1 - 1e-9)]
-    return min(ties, key=lambda c: (c["tp"] * c["pp"], c["batch"], c["tp"]))
+    return min(ties, key=lambda c: (c["tp"] * c["pp"], c["batch"], c["tp"]))
\ No newline at end of file
