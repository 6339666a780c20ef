# replaces: decode_step_time
# wrong: one max over the bytes and the FLOPs summed over all stages, not a max per stage: a stage that waits for
#   compute while another waits for memory is not seen
# must-lose: decode_step_time_unequal_stages
# must-keep: decode_step_time_weights_bound, decode_step_time_rejects_bad_input
@@ -23,4 +23,5 @@
                       + 2 * (tp - 1) * hardware["link_latency"])
     step = (pp - 1) * (hardware["link_latency"] + activation / hardware["link_bandwidth"])  # the hops
+    read = flops = 0.0
     for stage in range(pp):
         layers = n_layers // pp + (1 if stage < n_layers % pp else 0)
@@ -28,5 +29,5 @@
         params = (layers * per_layer + (embedding if stage == pp - 1 else 0)) / tp
         kv_bytes = batch * context_len * kv_cache_bytes_per_token(model, tp, pp, stage * tp)
-        step += max((params * nbytes + kv_bytes) / hardware["hbm_bandwidth"], 2 * params * batch / hardware["flops"])
+        read, flops = read + params * nbytes + kv_bytes, flops + 2 * params * batch
         step += layers * 2 * all_reduce
-    return step
+    return step + max(read / hardware["hbm_bandwidth"], flops / hardware["flops"])
