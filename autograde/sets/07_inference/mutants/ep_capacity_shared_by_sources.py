# replaces: dispatch_plan
# wrong: one capacity per expert for all source ranks together (slots counted across
#   sources) instead of each source rank's own
# must-lose: dispatch_plan_capacity_and_drops
# must-keep: dispatch_plan_routes_top_k, dispatch_plan_rejects_bad_input
@@ -13,8 +13,8 @@
         raise ValueError(f"rank must be an int from 0 to {ranks - 1}, got {rank!r}")
     experts_per_rank = n_experts // ranks
-    arrived = []
-    for source, rows in enumerate(router_logits.tolist()):   # each source rank: its own tokens, its own slots
+    arrived, filled = [], [0] * n_experts
+    for source, rows in enumerate(router_logits.tolist()):   # slots counted over all sources
         choices = [sorted(range(n_experts), key=lambda e: (-row[e], e))[:k] for row in rows]  # ties: lower index
-        filled, kept = [0] * n_experts, []
+        kept = []
         for j in range(k):                              # every token's first choice, then every second choice, ...
             for token, chosen in enumerate(choices):    # ... in token order
