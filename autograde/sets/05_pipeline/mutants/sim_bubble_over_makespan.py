# replaces: simulate_pipeline
# wrong: reports the idle share of the makespan, 1 - ideal / makespan, as the bubble fraction
# must-lose: simulate_pipeline_makespan_and_bubble
# must-keep: simulate_pipeline_peak_in_flight, simulate_pipeline_rejects_invalid
@@ -39,4 +39,4 @@
         peaks.append(peak)
     makespan = max(free)
-    return {"makespan": makespan, "bubble_fraction": makespan / (m * (t_forward + t_backward)) - 1,
+    return {"makespan": makespan, "bubble_fraction": 1 - m * (t_forward + t_backward) / makespan,
             "peak_in_flight": peaks, "timeline": timeline}
