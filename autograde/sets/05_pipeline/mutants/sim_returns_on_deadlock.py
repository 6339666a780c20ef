# replaces: simulate_pipeline
# wrong: stops at a deadlock and returns what it simulated so far, without an error
# must-lose: simulate_pipeline_rejects_invalid
# must-keep: simulate_pipeline_makespan_and_bubble, simulate_pipeline_peak_in_flight
@@ -30,5 +30,5 @@
                 progressed = True
         if not progressed:
-            raise ValueError(f"deadlock: every stage with operations left waits (next ops at positions {position})")
+            break  # nothing more can run
     peaks = []
     for ops in stages:
