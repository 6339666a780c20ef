# replaces: decode_step_time
# wrong: gives the n_layers % pp extra layers to the last stages, not the first ones (Part 2's rule), for the weights
#   and all-reduces (the KV cache comes from kv_cache_bytes_per_token)
# must-lose: decode_step_time_unequal_stages
# must-keep: decode_step_time_weights_bound, decode_step_time_full_model, decode_step_time_rejects_bad_input
@@ -24,5 +24,5 @@
     step = (pp - 1) * (hardware["link_latency"] + activation / hardware["link_bandwidth"])  # the hops
     for stage in range(pp):
-        layers = n_layers // pp + (1 if stage < n_layers % pp else 0)
+        layers = n_layers // pp + (1 if stage >= pp - n_layers % pp else 0)
         # read: its layers, and on the last stage the output layer (the input embedding only gathers batch rows)
         params = (layers * per_layer + (embedding if stage == pp - 1 else 0)) / tp
