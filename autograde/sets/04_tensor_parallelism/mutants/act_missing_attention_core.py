# replaces: activation_memory_per_layer
# wrong: forgets the attention core's 5as/h term (softmax, its dropout mask, QK^T): every recompute='none' case is wrong
# must-lose: activation_memory_matches_formula
# must-keep: activation_memory_rejects_bad_input
@@ -12,4 +12,4 @@
     if recompute == "full":
         return 2 * sbh / replicated
-    attention_core = 0 if recompute == "selective" else 5 * a * s / (h * t)
+    attention_core = 0
     return sbh * (10 / replicated + 24 / t + attention_core)
