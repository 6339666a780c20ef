# replaces: find_stragglers
# wrong: a pace exactly at factor x the reference counts as a straggler
# must-lose: find_stragglers_values
# must-keep: find_stragglers_rejects_bad_input
@@ -20,3 +20,3 @@
     paces = [statistics.median(times[warmup:]) for times in compute_times]
     reference = statistics.median(paces)
-    return [rank for rank, pace in enumerate(paces) if pace > factor * reference]
+    return [rank for rank, pace in enumerate(paces) if pace >= factor * reference]
