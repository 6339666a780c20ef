# replaces: dispatch_plan
# wrong: gives out slots token by token (token 0's choices, then token 1's) instead of every
#   first choice before any second choice
# must-lose: dispatch_plan_capacity_and_drops
# must-keep: dispatch_plan_routes_top_k, dispatch_plan_rejects_bad_input
@@ -17,6 +17,6 @@
         choices = [sorted(range(n_experts), key=lambda e: (-row[e], e))[:k] for row in rows]  # ties: lower index
         filled, kept = [0] * n_experts, []
-        for j in range(k):                              # every token's first choice, then every second choice, ...
-            for token, chosen in enumerate(choices):    # ... in token order
+        for token, chosen in enumerate(choices):        # token by token
+            for j in range(k):
                 expert = chosen[j]
                 if filled[expert] < capacity:
