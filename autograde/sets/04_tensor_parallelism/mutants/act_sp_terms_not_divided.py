# replaces: activation_memory_per_layer
# wrong: sequence parallelism leaves the 10sbh of LayerNorm and dropout regions undivided by t (as if SP did nothing)
# must-lose: activation_memory_matches_formula
# must-keep: activation_memory_rejects_bad_input
@@ -9,5 +9,5 @@
         raise ValueError(f"t={t} must divide the number of heads a={a} and the hidden size h={h}")
     sbh = s * b * h
-    replicated = t if sequence_parallel else 1  # LayerNorm and dropout regions: sharded along s only with SP
+    replicated = 1  # LayerNorm and dropout regions: sharded along s only with SP
     if recompute == "full":
         return 2 * sbh / replicated
