# replaces: dispatch_plan
# wrong: breaks ties between equal logits toward the higher expert index
# must-lose: dispatch_plan_routes_top_k, dispatch_plan_capacity_and_drops
# must-keep: dispatch_plan_rejects_bad_input
@@ -15,5 +15,5 @@
     arrived = []
     for source, rows in enumerate(router_logits.tolist()):   # each source rank: its own tokens, its own slots
-        choices = [sorted(range(n_experts), key=lambda e: (-row[e], e))[:k] for row in rows]  # ties: lower index
+        choices = [sorted(range(n_experts), key=lambda e: (-row[e], -e))[:k] for row in rows]  # ties: lower index
         filled, kept = [0] * n_experts, []
         for j in range(k):                              # every token's first choice, then every second choice, ...
