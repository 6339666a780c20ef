# replaces: decode_step_time
# wrong: takes the memory time only: large batches, which are compute-bound, come out too fast
# must-lose: decode_step_time_full_model
# must-keep: decode_step_time_weights_bound, decode_step_time_rejects_bad_input, best_config_is_the_best,
#   best_config_slo_memory_ties, best_config_rejects_bad_input
@@ -28,5 +28,5 @@
         params = (layers * per_layer + (embedding if stage == pp - 1 else 0)) / tp
         kv_bytes = batch * context_len * kv_cache_bytes_per_token(model, tp, pp, stage * tp)
-        step += max((params * nbytes + kv_bytes) / hardware["hbm_bandwidth"], 2 * params * batch / hardware["flops"])
+        step += (params * nbytes + kv_bytes) / hardware["hbm_bandwidth"]
         step += layers * 2 * all_reduce
     return step
