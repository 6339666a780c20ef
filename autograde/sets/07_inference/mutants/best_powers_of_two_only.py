# replaces: best_config
# wrong: searches tp and pp among powers of two only: TP5 for a 40-head model, or PP5 for 80 layers, is never tried
# must-lose: best_config_is_the_best
# must-keep: best_config_rejects_bad_input, decode_step_time_full_model
@@ -16,6 +16,7 @@
     per_layer = (model["n_params"] - 2 * embedding) / n_layers
     found = []
-    for tp in range(1, num_devices + 1):
-        for pp in range(1, min(num_devices // tp, n_layers) + 1):
+    powers = [2**k for k in range(num_devices.bit_length())]  # BUG: 5 heads' worth or 5 stages are never tried
+    for tp in powers:
+        for pp in [p for p in powers if p <= n_layers]:
             if num_devices % (tp * pp):
                 continue
