# replaces: find_stragglers
# wrong: the reference is the lower middle value for an even number of ranks
# must-lose: find_stragglers_values
# must-keep: find_stragglers_rejects_bad_input
@@ -19,4 +19,4 @@
         raise ValueError(f"warmup = {warmup} leaves none of the {steps} steps")
     paces = [statistics.median(times[warmup:]) for times in compute_times]
-    reference = statistics.median(paces)
+    reference = statistics.median_low(paces)
     return [rank for rank, pace in enumerate(paces) if pace > factor * reference]
