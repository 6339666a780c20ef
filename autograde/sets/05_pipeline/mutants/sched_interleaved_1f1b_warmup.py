# replaces: pipeline_schedule
# wrong: interleaved with 1F1B's warm-up, p - s - 1, instead of Megatron's 2(p - s - 1) + (v - 1)p
# must-lose: pipeline_schedule_interleaved
# must-keep: pipeline_schedule_gpipe_and_1f1b, pipeline_schedule_rejects_invalid, schedules_run_on_a_real_pipeline
@@ -21,5 +21,5 @@
     schedule = []
     for s in range(p):
-        warmup = min(p - s - 1, m) if kind == "1f1b" else min(2 * (p - s - 1) + (v - 1) * p, m * v)
+        warmup = min(p - s - 1, m) if kind == "1f1b" else min(p - s - 1, m * v)
         ops = [("F", *unit(j, True)) for j in range(warmup)]
         for j in range(m * v - warmup):
