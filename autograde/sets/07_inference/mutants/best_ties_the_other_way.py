# replaces: best_config
# wrong: breaks ties toward the larger tp * pp and batch
# must-lose: best_config_slo_memory_ties
# must-keep: best_config_keeps_first_token_promise, best_config_rejects_bad_input
@@ -43,3 +43,3 @@
     most = max(c["tokens_per_s"] for c in found)
     ties = [c for c in found if c["tokens_per_s"] >= most * (1 - 1e-9)]
-    return min(ties, key=lambda c: (c["tp"] * c["pp"], c["batch"], c["tp"]))
+    return min(ties, key=lambda c: (-c["tp"] * c["pp"], -c["batch"], -c["tp"]))
