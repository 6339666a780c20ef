# replaces: dispatch_plan
# wrong: puts expert e on rank e % ranks (striped) instead of e // experts_per_rank
# must-lose: dispatch_plan_routes_top_k, dispatch_plan_capacity_and_drops
# must-keep: dispatch_plan_rejects_bad_input
@@ -24,4 +24,4 @@
                     filled[expert] += 1
         arrived += [(source, token, expert) for expert, _, token in sorted(kept)  # sent by expert, then slot
-                    if expert // experts_per_rank == rank]
+                    if expert % ranks == rank]
     return arrived
