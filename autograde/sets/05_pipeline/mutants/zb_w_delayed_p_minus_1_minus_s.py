# replaces: zb_schedule
# wrong: stage s delays its W's by p - 1 - s backwards (the first stage most, the last not at all): the first stage
#   keeps p - 1 more than its peak without the split
# must-lose: zb_schedule_one_chunk, zb_schedule_interleaved
# must-keep: zb_schedule_rejects_invalid, backward_input_then_weight, zero_bubble_runs_on_a_real_pipeline
@@ -15,10 +15,11 @@
     schedule = []
     for s in range(p):
+        d = p - 1 - s
         warmup = min(p - s - 1, m) if v == 1 else min(2 * (p - s - 1) + (v - 1) * p, m * v)
         ops = [("F", *unit(j, True)) for j in range(warmup)]
-        for j in range(m * v):  # Part 1's steady state with B for the backward; the W of backward j - s after B j:
-            ops += [("F", *unit(warmup + j, True))] if warmup + j < m * v else []  # stage s keeps s more than
-            ops.append(("B", *unit(j, False)))                                    # its own peak, at most stage 0's
-            ops += [("W", *unit(j - s, False))] if j >= s else []
-        schedule.append(ops + [("W", *unit(j, False)) for j in range(max(m * v - s, 0), m * v)])  # fill the cool-down
+        for j in range(m * v):
+            ops += [("F", *unit(warmup + j, True))] if warmup + j < m * v else []
+            ops.append(("B", *unit(j, False)))
+            ops += [("W", *unit(j - d, False))] if j >= d else []
+        schedule.append(ops + [("W", *unit(j, False)) for j in range(max(m * v - d, 0), m * v)])
     return schedule
