# replaces: llama_activation_memory_per_layer
# wrong: keeps three MLP tensors, not four: forgets that the product keeps SiLU's output as well as its
#   input's
# must-lose: llama_activation_memory_matches_count
# must-keep: activation_memory_matches_formula, activation_memory_rejects_bad_input, llama_activation_memory_rejects_bad_input
@@ -18,4 +18,4 @@
     attention = 2 * sbh + 2 * 2 * sbh * a_kv / a + 2 * sbh  # Q; K and V at a_kv heads; the output projection's input
     softmax = 0 if recompute == "selective" else 2 * a * s * s * b
-    mlp = 4 * 2 * s * b * f  # gate's output (SiLU's input), SiLU's output, up's output, the product (down's input)
+    mlp = 3 * 2 * s * b * f  # BUG: SiLU's output not counted  # gate's output (SiLU's input), SiLU's output, up's output, the product (down's input)
     return replicated / whole + (attention + softmax + mlp) / t
