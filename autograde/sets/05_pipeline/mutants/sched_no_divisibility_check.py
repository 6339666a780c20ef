# replaces: pipeline_schedule
# wrong: no ValueError when num_microbatches is not a multiple of num_stages for interleaved (it builds a schedule that misses or repeats microbatches)
# must-lose: pipeline_schedule_rejects_invalid
# must-keep: pipeline_schedule_gpipe_and_1f1b, pipeline_schedule_interleaved, schedules_run_on_a_real_pipeline
@@ -9,5 +9,5 @@
     if kind != "interleaved" and v != 1:
         raise ValueError(f"{kind} runs one chunk per stage, got num_chunks={v}")
-    if kind == "interleaved" and (v < 2 or m % p):
+    if kind == "interleaved" and v < 2:
         raise ValueError(f"interleaved needs num_chunks >= 2 (got {v}) and num_microbatches a multiple of "
                          f"num_stages (got {m} and {p})")
