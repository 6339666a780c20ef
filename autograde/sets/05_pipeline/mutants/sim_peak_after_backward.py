# replaces: simulate_pipeline
# wrong: counts the microbatches in flight after each backward instead of when a forward starts (one too few)
# must-lose: simulate_pipeline_peak_in_flight
# must-keep: simulate_pipeline_makespan_and_bubble, simulate_pipeline_rejects_invalid
@@ -36,5 +36,6 @@
         for op, _, _ in ops:
             in_flight += 1 if op == "F" else -1
-            peak = max(peak, in_flight)
+            if op == "B":
+                peak = max(peak, in_flight)
         peaks.append(peak)
     makespan = max(free)
