# replaces: best_config
# wrong: judges the fit on the average device of the replica (its weights and KV cache over pp), not on every one: the
#   first stage, with the input embedding and the extra layers, may not fit when the average does
# must-lose: best_config_fits_every_device, best_config_slo_memory_ties
# must-keep: best_config_is_the_best, best_config_rejects_bad_input
@@ -32,5 +32,6 @@
                 devices.append((held / tp * nbytes, context_len * kv_cache_bytes_per_token(model, tp, pp, stage * tp)))
             batch = 1
-            while batch <= max_batch and all(w + pp * batch * kv <= hardware["hbm_bytes"] for w, kv in devices):
+            weights, kv = sum(w for w, _ in devices) / pp, sum(k for _, k in devices) / pp  # the average device
+            while batch <= max_batch and weights + pp * batch * kv <= hardware["hbm_bytes"]:
                 step = decode_step_time(model, hardware, tp, pp, batch, context_len)
                 if 1000 * step <= latency_slo_ms:
