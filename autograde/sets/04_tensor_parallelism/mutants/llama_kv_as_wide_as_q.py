# replaces: llama_activation_memory_per_layer
# wrong: counts K and V as wide as Q (multi-head attention): grouped-query attention's K and V
#   are a_kv / a as wide
# must-lose: llama_activation_memory_matches_count
# must-keep: activation_memory_matches_formula, activation_memory_rejects_bad_input, llama_activation_memory_rejects_bad_input
@@ -16,5 +16,5 @@
     # whole on every TP rank (split along s with SP): the 2 norms' inputs and the 2 column layers' inputs
     replicated = 4 * 2 * sbh
-    attention = 2 * sbh + 2 * 2 * sbh * a_kv / a + 2 * sbh  # Q; K and V at a_kv heads; the output projection's input
+    attention = 2 * sbh + 2 * 2 * sbh + 2 * sbh  # BUG: K, V at a heads  # Q; K and V at a_kv heads; the output projection's input
     softmax = 0 if recompute == "selective" else 2 * a * s * s * b
     mlp = 4 * 2 * s * b * f  # gate's output (SiLU's input), SiLU's output, up's output, the product (down's input)
