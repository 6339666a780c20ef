# replaces: best_config
# wrong: checks that the weights fit, not the KV cache of the batches in flight
# must-lose: best_config_is_the_best, best_config_slo_memory_ties
# must-keep: best_config_rejects_bad_input
@@ -32,5 +32,5 @@
                 devices.append((held / tp * nbytes, context_len * kv_cache_bytes_per_token(model, tp, pp, stage * tp)))
             batch = 1
-            while batch <= max_batch and all(w + pp * batch * kv <= hardware["hbm_bytes"] for w, kv in devices):
+            while batch <= max_batch and all(w <= hardware["hbm_bytes"] for w, kv in devices):
                 step = decode_step_time(model, hardware, tp, pp, batch, context_len)
                 if 1000 * step <= latency_slo_ms:
