# replaces: pipeline_schedule
# wrong: 1F1B with no warm-up: every stage alternates F, B from the start (runs, but one microbatch at a time: makespan m p (t_f + t_b))
# must-lose: pipeline_schedule_gpipe_and_1f1b
# must-keep: pipeline_schedule_interleaved, pipeline_schedule_rejects_invalid, schedules_run_on_a_real_pipeline
@@ -21,5 +21,5 @@
     schedule = []
     for s in range(p):
-        warmup = min(p - s - 1, m) if kind == "1f1b" else min(2 * (p - s - 1) + (v - 1) * p, m * v)
+        warmup = 0 if kind == "1f1b" else min(2 * (p - s - 1) + (v - 1) * p, m * v)
         ops = [("F", *unit(j, True)) for j in range(warmup)]
         for j in range(m * v - warmup):
