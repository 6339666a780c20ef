# replaces: decode_step_time
# wrong: takes the memory time only: large batches, which are compute-bound, come out too fast
# must-lose: decode_step_time_full_model
# must-keep: decode_step_time_weights_bound, decode_step_time_rejects_bad_input, best_config_is_the_best,
#   best_config_slo_memory_ties, best_config_rejects_bad_input
@@ -15,5 +15,5 @@
     kv_bytes = batch * context_len * kv_cache_bytes_per_token(model, tp, pp, 0)  # every device holds as much
     flops = 2 * model["n_params"] * batch / (tp * pp)
-    stage = max((weight_bytes + kv_bytes) / hardware["hbm_bandwidth"], flops / hardware["flops"])
+    stage = (weight_bytes + kv_bytes) / hardware["hbm_bandwidth"]
     activation = batch * model["d_model"] * nbytes
     if tp > 1:
