# replaces: best_config
# wrong: keeps a configuration only when its step is strictly shorter than the promise; the statement says <=
# must-lose: best_config_slo_memory_ties
# must-keep: best_config_keeps_first_token_promise, best_config_is_the_best, best_config_rejects_bad_input,
#   decode_step_time_full_model
@@ -34,5 +34,5 @@
             while batch <= max_batch and all(w + pp * batch * kv <= hardware["hbm_bytes"] for w, kv in devices):
                 step = decode_step_time(model, hardware, tp, pp, batch, context_len)
-                if 1000 * step <= latency_slo_ms:
+                if 1000 * step < latency_slo_ms:  # BUG: a step exactly on the promise keeps it
                     replicas = num_devices // (tp * pp)
                     found.append(dict(tp=tp, pp=pp, replicas=replicas, batch=batch,
