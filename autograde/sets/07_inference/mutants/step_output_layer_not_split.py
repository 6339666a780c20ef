# replaces: decode_step_time
# wrong: every device of the last stage reads the whole output layer (not split over the tp devices by vocabulary)
# must-lose: decode_step_time_weights_bound, decode_step_time_full_model, decode_step_time_unequal_stages
# must-keep: decode_step_time_rejects_bad_input
@@ -26,5 +26,5 @@
         layers = n_layers // pp + (1 if stage < n_layers % pp else 0)
         # read: its layers, and on the last stage the output layer (the input embedding only gathers batch rows)
-        params = (layers * per_layer + (embedding if stage == pp - 1 else 0)) / tp
+        params = layers * per_layer / tp + (embedding if stage == pp - 1 else 0)
         kv_bytes = batch * context_len * kv_cache_bytes_per_token(model, tp, pp, stage * tp)
         step += max((params * nbytes + kv_bytes) / hardware["hbm_bandwidth"], 2 * params * batch / hardware["flops"])
