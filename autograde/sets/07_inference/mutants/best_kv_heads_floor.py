# replaces: best_config
# wrong: counts n_kv_heads // tp KV heads per rank for the memory test: 0 when tp > n_kv_heads, where each rank keeps
#   one (replicated), so a configuration that does not fit looks as if it does
# must-lose: best_config_is_the_best
# must-keep: best_config_rejects_bad_input
@@ -30,5 +30,6 @@
                 layers = n_layers // pp + (1 if stage < n_layers % pp else 0)
                 held = layers * per_layer + embedding * ((stage == 0) + (stage == pp - 1))  # embedding, output layer
-                devices.append((held / tp * nbytes, context_len * kv_cache_bytes_per_token(model, tp, pp, stage * tp)))
+                kv_per_token = 2 * layers * (model["n_kv_heads"] // tp) * model["head_dim"] * nbytes
+                devices.append((held / tp * nbytes, context_len * kv_per_token))
             batch = 1
             while batch <= max_batch and all(w + pp * batch * kv <= hardware["hbm_bytes"] for w, kv in devices):
