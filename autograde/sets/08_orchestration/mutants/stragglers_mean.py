# replaces: find_stragglers
# wrong: a rank's pace is its mean compute time: one noisy step makes it a straggler
# must-lose: find_stragglers_values
# must-keep: find_stragglers_rejects_bad_input
@@ -18,5 +18,5 @@
     if warmup >= steps:
         raise ValueError(f"warmup = {warmup} leaves none of the {steps} steps")
-    paces = [statistics.median(times[warmup:]) for times in compute_times]
+    paces = [statistics.mean(times[warmup:]) for times in compute_times]
     reference = statistics.median(paces)
     return [rank for rank, pace in enumerate(paces) if pace > factor * reference]
