# replaces: llama_activation_memory_per_layer
# wrong: does not check that a_kv divides a, nor that t divides a_kv
# must-lose: llama_activation_memory_rejects_bad_input
# must-keep: activation_memory_matches_formula, activation_memory_rejects_bad_input, llama_activation_memory_matches_count
@@ -7,7 +7,5 @@
         if not value > 0:
             raise ValueError(f"{name} must be positive, got {value!r}")
-    if a % a_kv:
-        raise ValueError(f"a_kv={a_kv} key/value heads must divide a={a} query heads")
-    if a_kv % t or f % t:
+    if f % t:  # BUG: a_kv is never checked
         raise ValueError(f"t={t} must divide a_kv={a_kv} and f={f}")
     sbh, whole = s * b * h, (t if sequence_parallel else 1)
