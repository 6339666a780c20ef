# replaces: best_config
# wrong: counts one batch per replica in flight, not pp: pipelined configurations look pp times slower
# must-lose: best_config_is_the_best
# must-keep: best_config_rejects_bad_input
@@ -37,5 +37,5 @@
                     replicas = num_devices // (tp * pp)
                     found.append(dict(tp=tp, pp=pp, replicas=replicas, batch=batch,
-                                      tokens_per_s=replicas * pp * batch / step, latency_ms=1000 * step))
+                                      tokens_per_s=replicas * batch / step, latency_ms=1000 * step))
                 batch *= 2
     if not found:
