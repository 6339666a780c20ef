# replaces: zb_schedule
# wrong: no ValueError when m is not a multiple of p with v >= 2 chunks (Part 1's requirement): zb_schedule(4, 6, 2)
#   returns a schedule
# must-lose: zb_schedule_rejects_invalid
# must-keep: zb_schedule_one_chunk, zb_schedule_interleaved, backward_input_then_weight,
#   zero_bubble_runs_on_a_real_pipeline
@@ -6,6 +6,4 @@
         if not isinstance(value, int) or isinstance(value, bool) or value < 1:
             raise ValueError(f"{name} must be a positive int, got {value!r}")
-    if v > 1 and m % p:
-        raise ValueError(f"with {v} chunks num_microbatches must be a multiple of num_stages, got {m} and {p}")

     def unit(j, forward):  # Part 1's j-th forward or backward of a stage: (microbatch, chunk)
@@ -17,8 +15,8 @@
         warmup = min(p - s - 1, m) if v == 1 else min(2 * (p - s - 1) + (v - 1) * p, m * v)
         ops = [("F", *unit(j, True)) for j in range(warmup)]
-        for j in range(m * v):  # Part 1's steady state with B for the backward; the W of backward j - s after B j:
-            ops += [("F", *unit(warmup + j, True))] if warmup + j < m * v else []  # stage s keeps s more than
-            ops.append(("B", *unit(j, False)))                                    # its own peak, at most stage 0's
+        for j in range(m * v):
+            ops += [("F", *unit(warmup + j, True))] if warmup + j < m * v else []
+            ops.append(("B", *unit(j, False)))
             ops += [("W", *unit(j - s, False))] if j >= s else []
-        schedule.append(ops + [("W", *unit(j, False)) for j in range(max(m * v - s, 0), m * v)])  # fill the cool-down
+        schedule.append(ops + [("W", *unit(j, False)) for j in range(max(m * v - s, 0), m * v)])
     return schedule
