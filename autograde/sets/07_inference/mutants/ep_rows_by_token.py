# replaces: dispatch_plan
# wrong: orders a source's rows by expert, then token, instead of expert, then slot (priority)
# must-lose: dispatch_plan_capacity_and_drops
# must-keep: dispatch_plan_routes_top_k, dispatch_plan_rejects_bad_input
@@ -23,5 +23,5 @@
                     kept.append((expert, filled[expert], token))
                     filled[expert] += 1
-        arrived += [(source, token, expert) for expert, _, token in sorted(kept)  # sent by expert, then slot
+        arrived += [(source, token, expert) for expert, _, token in sorted(kept, key=lambda c: (c[0], c[2]))  # sent by expert, then slot
                     if expert // experts_per_rank == rank]
     return arrived
