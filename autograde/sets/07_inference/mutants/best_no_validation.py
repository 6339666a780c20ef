# replaces: best_config
# wrong: checks none of Part 4's arguments: 0 devices give None, a negative promise gives None
# must-lose: best_config_rejects_bad_input
# must-keep: best_config_keeps_first_token_promise, best_config_is_the_best, best_config_fits_every_device
@@ -3,8 +3,4 @@
     """The (tp, pp, replicas, batch) with the most tokens/s whose decode step keeps `latency_slo_ms` and whose
     weights and KV cache fit every device (and whose prefill keeps `ttft_slo_ms`, if given); None if none does."""
-    for name, value in dict(num_devices=num_devices, latency_slo_ms=latency_slo_ms, context_len=context_len,
-                            max_batch=max_batch).items():
-        if not value > 0:
-            raise ValueError(f"{name} must be positive, got {value!r}")
     if (ttft_slo_ms is None) != (prompt_len is None):
         raise ValueError(f"give both ttft_slo_ms and prompt_len, or neither: got {ttft_slo_ms!r} and {prompt_len!r}")
