# replaces: simulate_pipeline
# wrong: places chunk c of stage s at model part s v + c instead of c p + s: Megatron's interleaved order then deadlocks (a ValueError for a valid schedule)
# must-lose: simulate_pipeline_makespan_and_bubble, simulate_pipeline_peak_in_flight
# must-keep: simulate_pipeline_rejects_invalid
@@ -19,5 +19,5 @@
             while position[s] < len(ops):
                 op, mb, chunk = ops[position[s]]
-                k = chunk * p + s  # the model part
+                k = s * v + chunk  # the model part
                 needs = [("F", mb, k - 1)] if op == "F" and k > 0 else [] if op == "F" else [("F", mb, k)]
                 needs += [("B", mb, k + 1)] if op == "B" and k < last else []
