# replaces: decode_step_time
# wrong: still rejects a pp that does not divide n_layers (the lesson's rule), which the exercise allows
# must-lose: decode_step_time_unequal_stages
# must-keep: decode_step_time_weights_bound, decode_step_time_full_model, decode_step_time_rejects_bad_input
@@ -10,5 +10,5 @@
     shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)  # a tp that does not split the heads raises
     n_layers, nbytes = model["n_layers"], model["bytes_per_param"]
-    if not 1 <= pp <= n_layers:
+    if not 1 <= pp <= n_layers or n_layers % pp:
         raise ValueError(f"pp={pp}: {n_layers} layers cannot give each of {pp} stages a layer")
     embedding = model["vocab_size"] * model["d_model"]  # the input embedding's parameters; the output layer's too
