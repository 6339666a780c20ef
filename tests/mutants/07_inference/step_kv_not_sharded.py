# replaces: decode_step_time
# wrong: reads the KV cache of every KV head on every device (as if the cache were not split by heads)
# must-lose: decode_step_time_full_model
@@ -13,5 +13,5 @@
     layers, nbytes = model["n_layers"] // pp, model["bytes_per_param"]
     weight_bytes = model["n_params"] * nbytes / (tp * pp)
-    kv_bytes = batch * context_len * kv_cache_bytes_per_token(model, tp, pp, 0)  # every device holds as much
+    kv_bytes = batch * context_len * 2 * layers * model["n_kv_heads"] * model["head_dim"] * nbytes
     flops = 2 * model["n_params"] * batch / (tp * pp)
     stage = max((weight_bytes + kv_bytes) / hardware["hbm_bandwidth"], flops / hardware["flops"])
