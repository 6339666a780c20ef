# replaces: decode_step_time
# wrong: counts the pp stages as if they ran at the same time (the slowest stage's time, not the sum)
# must-lose: decode_step_time_full_model, decode_step_time_weights_bound
# must-keep: decode_step_time_rejects_bad_input
@@ -22,5 +22,5 @@
         all_reduce = (2 * (tp - 1) / tp * activation / hardware["link_bandwidth"]
                       + 2 * (tp - 1) * hardware["link_latency"])
-    step = (pp - 1) * (hardware["link_latency"] + activation / hardware["link_bandwidth"])  # the hops
+    hops, step = (pp - 1) * (hardware["link_latency"] + activation / hardware["link_bandwidth"]), 0.0
     for stage in range(pp):
         layers = n_layers // pp + (1 if stage < n_layers % pp else 0)
@@ -28,5 +28,5 @@
         params = (layers * per_layer + (embedding if stage == pp - 1 else 0)) / tp
         kv_bytes = batch * context_len * kv_cache_bytes_per_token(model, tp, pp, stage * tp)
-        step += max((params * nbytes + kv_bytes) / hardware["hbm_bandwidth"], 2 * params * batch / hardware["flops"])
-        step += layers * 2 * all_reduce
-    return step
+        step = max(step, max((params * nbytes + kv_bytes) / hardware["hbm_bandwidth"],
+                             2 * params * batch / hardware["flops"]) + layers * 2 * all_reduce)
+    return step + hops
