# replaces: decode_step_time
# wrong: counts one all-reduce per layer (the MLP's), not two
# must-lose: decode_step_time_full_model
# must-keep: decode_step_time_weights_bound, decode_step_time_rejects_bad_input
@@ -29,4 +29,4 @@
         kv_bytes = batch * context_len * kv_cache_bytes_per_token(model, tp, pp, stage * tp)
         step += max((params * nbytes + kv_bytes) / hardware["hbm_bandwidth"], 2 * params * batch / hardware["flops"])
-        step += layers * 2 * all_reduce
+        step += layers * all_reduce
     return step
