# replaces: decode_step_time
# wrong: reads the KV cache of every KV head on every device (as if the cache were not split by heads)
# must-lose: decode_step_time_full_model, decode_step_time_unequal_stages
# must-keep: decode_step_time_rejects_bad_input
@@ -27,5 +27,5 @@
         # read: its layers, and on the last stage the output layer (the input embedding only gathers batch rows)
         params = (layers * per_layer + (embedding if stage == pp - 1 else 0)) / tp
-        kv_bytes = batch * context_len * kv_cache_bytes_per_token(model, tp, pp, stage * tp)
+        kv_bytes = batch * context_len * 2 * layers * model["n_kv_heads"] * model["head_dim"] * nbytes
         step += max((params * nbytes + kv_bytes) / hardware["hbm_bandwidth"], 2 * params * batch / hardware["flops"])
         step += layers * 2 * all_reduce
