# replaces: best_config
# wrong: counts only exact equality as a tie (floating-point rounding splits true ties)
# must-lose: best_config_slo_memory_ties
# must-keep: best_config_keeps_first_token_promise, best_config_rejects_bad_input
@@ -42,4 +42,4 @@
         return None
     most = max(c["tokens_per_s"] for c in found)
-    ties = [c for c in found if c["tokens_per_s"] >= most * (1 - 1e-9)]
+    ties = [c for c in found if c["tokens_per_s"] == most]
     return min(ties, key=lambda c: (c["tp"] * c["pp"], c["batch"], c["tp"]))
