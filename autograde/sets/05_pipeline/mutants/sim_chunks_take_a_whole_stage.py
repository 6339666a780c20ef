# replaces: simulate_pipeline
# wrong: every chunk's op lasts t_forward or t_backward, not 1/v of it (interleaving looks v times slower)
# must-lose: simulate_pipeline_makespan_and_bubble
# must-keep: simulate_pipeline_peak_in_flight, simulate_pipeline_rejects_invalid
@@ -25,5 +25,5 @@
                     break
                 start = max([free[s]] + [ended[need] for need in needs])
-                free[s] = ended[op, mb, k] = start + (t_forward if op == "F" else t_backward) / v
+                free[s] = ended[op, mb, k] = start + (t_forward if op == "F" else t_backward)
                 timeline.append((s, op, mb, chunk, start, free[s]))
                 position[s] += 1
