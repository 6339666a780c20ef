# replaces: best_config
# wrong: holds the decode step, not the prefill, to the first-token promise
# must-lose: best_config_keeps_first_token_promise
# must-keep: best_config_is_the_best, best_config_slo_memory_ties, best_config_fits_every_device,
#   best_config_rejects_bad_input
@@ -24,6 +24,4 @@
             except ValueError:
                 continue
-            if ttft_slo_ms is not None and 1000 * prefill_time(model, hardware, tp, pp, prompt_len) > ttft_slo_ms:
-                continue
             devices = []  # (weight bytes, KV bytes per sequence) of a device of each stage
             for stage in range(pp):
@@ -34,5 +32,5 @@
             while batch <= max_batch and all(w + pp * batch * kv <= hardware["hbm_bytes"] for w, kv in devices):
                 step = decode_step_time(model, hardware, tp, pp, batch, context_len)
-                if 1000 * step <= latency_slo_ms:
+                if 1000 * step <= latency_slo_ms and (ttft_slo_ms is None or 1000 * step <= ttft_slo_ms):
                     replicas = num_devices // (tp * pp)
                     found.append(dict(tp=tp, pp=pp, replicas=replicas, batch=batch,
