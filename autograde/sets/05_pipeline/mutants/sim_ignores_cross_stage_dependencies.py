# replaces: simulate_pipeline
# wrong: an op starts as soon as its stage is free: the inputs from the other stages are never waited for (and nothing deadlocks)
# must-lose: simulate_pipeline_makespan_and_bubble, simulate_pipeline_rejects_invalid
# must-keep: simulate_pipeline_peak_in_flight
@@ -22,7 +22,5 @@
                 needs = [("F", mb, k - 1)] if op == "F" and k > 0 else [] if op == "F" else [("F", mb, k)]
                 needs += [("B", mb, k + 1)] if op == "B" and k < last else []
-                if any(need not in ended for need in needs):
-                    break
-                start = max([free[s]] + [ended[need] for need in needs])
+                start = free[s]
                 free[s] = ended[op, mb, k] = start + (t_forward if op == "F" else t_backward) / v
                 timeline.append((s, op, mb, chunk, start, free[s]))
