# replaces: best_config
# wrong: a first-token promise without a prompt length (or the other way round) is silently ignored, not a
#   ValueError
# must-lose: best_config_keeps_first_token_promise
# must-keep: best_config_is_the_best, best_config_slo_memory_ties, best_config_rejects_bad_input
@@ -7,6 +7,6 @@
         if not value > 0:
             raise ValueError(f"{name} must be positive, got {value!r}")
-    if (ttft_slo_ms is None) != (prompt_len is None):
-        raise ValueError(f"give both ttft_slo_ms and prompt_len, or neither: got {ttft_slo_ms!r} and {prompt_len!r}")
+    if ttft_slo_ms is None or prompt_len is None:
+        ttft_slo_ms = prompt_len = None
     if ttft_slo_ms is not None and not (ttft_slo_ms > 0 and prompt_len > 0):
         raise ValueError(f"ttft_slo_ms and prompt_len must be positive, got {ttft_slo_ms!r} and {prompt_len!r}")
