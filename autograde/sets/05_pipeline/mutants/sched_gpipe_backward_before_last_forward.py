# replaces: pipeline_schedule
# wrong: a 'GPipe' whose stages start the first backward before their last forward
# must-lose: pipeline_schedule_gpipe_and_1f1b
# must-keep: pipeline_schedule_interleaved, pipeline_schedule_rejects_invalid, schedules_run_on_a_real_pipeline
@@ -13,5 +13,8 @@
                          f"num_stages (got {m} and {p})")
     if kind == "gpipe":
-        return [[("F", mb, 0) for mb in range(m)] + [("B", mb, 0) for mb in range(m)] for _ in range(p)]
+        ops = [("F", mb, 0) for mb in range(m)] + [("B", mb, 0) for mb in range(m)]
+        if m > 1:
+            ops[m - 1], ops[m] = ops[m], ops[m - 1]  # B0 before F(m-1)
+        return [list(ops) for _ in range(p)]

     def unit(j, forward):  # the j-th forward or backward of a stage: (microbatch, chunk)
