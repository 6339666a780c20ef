# replaces: best_config
# wrong: compares the step in seconds with the promise in milliseconds: every step under 20 s keeps a 20 ms promise
# must-lose: best_config_is_the_best
# must-keep: best_config_rejects_bad_input
@@ -34,5 +34,5 @@
             while batch <= max_batch and all(w + pp * batch * kv <= hardware["hbm_bytes"] for w, kv in devices):
                 step = decode_step_time(model, hardware, tp, pp, batch, context_len)
-                if 1000 * step <= latency_slo_ms:
+                if step <= latency_slo_ms:
                     replicas = num_devices // (tp * pp)
                     found.append(dict(tp=tp, pp=pp, replicas=replicas, batch=batch,
