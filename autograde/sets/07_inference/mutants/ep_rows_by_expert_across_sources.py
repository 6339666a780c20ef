# replaces: dispatch_plan
# wrong: orders the output by expert, then source rank, instead of by source rank
#   (all_to_all_single concatenates the chunks by source)
# must-lose: dispatch_plan_capacity_and_drops
# must-keep: dispatch_plan_routes_top_k, dispatch_plan_rejects_bad_input
@@ -25,3 +25,3 @@
         arrived += [(source, token, expert) for expert, _, token in sorted(kept)  # sent by expert, then slot
                     if expert // experts_per_rank == rank]
-    return arrived
+    return sorted(arrived, key=lambda row: row[2])
