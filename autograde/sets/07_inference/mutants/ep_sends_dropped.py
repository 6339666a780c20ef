# replaces: dispatch_plan
# wrong: sends the dropped choices too (capacity checked but the choice kept with the next slot)
# must-lose: dispatch_plan_capacity_and_drops
# must-keep: dispatch_plan_routes_top_k, dispatch_plan_rejects_bad_input
@@ -20,7 +20,6 @@
             for token, chosen in enumerate(choices):    # ... in token order
                 expert = chosen[j]
-                if filled[expert] < capacity:
-                    kept.append((expert, filled[expert], token))
-                    filled[expert] += 1
+                kept.append((expert, filled[expert], token))
+                filled[expert] += 1
         arrived += [(source, token, expert) for expert, _, token in sorted(kept)  # sent by expert, then slot
                     if expert // experts_per_rank == rank]
