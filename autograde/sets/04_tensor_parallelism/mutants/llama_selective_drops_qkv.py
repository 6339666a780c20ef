# replaces: llama_activation_memory_per_layer
# wrong: selective recomputation also drops Q, K and V, which recomputing the softmax needs
# must-lose: llama_activation_memory_matches_count
# must-keep: activation_memory_matches_formula, activation_memory_rejects_bad_input, llama_activation_memory_rejects_bad_input
@@ -18,4 +18,6 @@
     attention = 2 * sbh + 2 * 2 * sbh * a_kv / a + 2 * sbh  # Q; K and V at a_kv heads; the output projection's input
     softmax = 0 if recompute == "selective" else 2 * a * s * s * b
+    if recompute == "selective":  # BUG: Q, K, V go too
+        attention = 2 * sbh
     mlp = 4 * 2 * s * b * f  # gate's output (SiLU's input), SiLU's output, up's output, the product (down's input)
     return replicated / whole + (attention + softmax + mlp) / t
