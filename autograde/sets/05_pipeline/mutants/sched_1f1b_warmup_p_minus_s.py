# replaces: pipeline_schedule
# wrong: 1F1B's warm-up is p - s forwards instead of p - s - 1 (one microbatch more in flight on every stage)
# must-lose: pipeline_schedule_gpipe_and_1f1b
# must-keep: pipeline_schedule_interleaved, pipeline_schedule_rejects_invalid, schedules_run_on_a_real_pipeline
@@ -21,5 +21,5 @@
     schedule = []
     for s in range(p):
-        warmup = min(p - s - 1, m) if kind == "1f1b" else min(2 * (p - s - 1) + (v - 1) * p, m * v)
+        warmup = min(p - s, m) if kind == "1f1b" else min(2 * (p - s - 1) + (v - 1) * p, m * v)
         ops = [("F", *unit(j, True)) for j in range(warmup)]
         for j in range(m * v - warmup):
