# replaces: llama_activation_memory_per_layer
# wrong: with sequence parallelism, divides the norms' inputs by t but keeps the column layers' inputs
#   whole
# must-lose: llama_activation_memory_matches_count
# must-keep: activation_memory_matches_formula, activation_memory_rejects_bad_input, llama_activation_memory_rejects_bad_input
@@ -19,3 +19,3 @@
     softmax = 0 if recompute == "selective" else 2 * a * s * s * b
     mlp = 4 * 2 * s * b * f  # gate's output (SiLU's input), SiLU's output, up's output, the product (down's input)
-    return replicated / whole + (attention + softmax + mlp) / t
+    return 2 * 2 * sbh / whole + 2 * 2 * sbh + (attention + softmax + mlp) / t  # BUG: column inputs whole
