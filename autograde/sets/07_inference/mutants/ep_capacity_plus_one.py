# replaces: dispatch_plan
# wrong: lets an expert take capacity + 1 of a source's choices (<= instead of <)
# must-lose: dispatch_plan_capacity_and_drops
# must-keep: dispatch_plan_routes_top_k, dispatch_plan_rejects_bad_input
@@ -20,5 +20,5 @@
             for token, chosen in enumerate(choices):    # ... in token order
                 expert = chosen[j]
-                if filled[expert] < capacity:
+                if filled[expert] <= capacity:
                     kept.append((expert, filled[expert], token))
                     filled[expert] += 1
