# replaces: best_config
# wrong: counts n_kv_heads // tp KV heads per rank for the memory test: 0 when tp > n_kv_heads, where each rank keeps
#   one (replicated), so a configuration that does not fit looks as if it does
# must-lose: best_config_is_the_best
# must-keep: best_config_rejects_bad_input
@@ -25,5 +25,5 @@
             layers, nbytes = model["n_layers"] // pp, model["bytes_per_param"]
             weights = model["n_params"] * nbytes / (tp * pp)
-            kv_per_sequence = context_len * kv_cache_bytes_per_token(model, tp, pp, 0)
+            kv_per_sequence = context_len * 2 * layers * (model["n_kv_heads"] // tp) * model["head_dim"] * nbytes
             batch = 1
             while batch <= max_batch and weights + pp * batch * kv_per_sequence <= hardware["hbm_bytes"]:
