# replaces: pipeline_schedule
# wrong: does not compile (a missing colon): pipeline_schedule is never defined
# must-zero: pipeline_schedule_gpipe_and_1f1b, pipeline_schedule_interleaved, pipeline_schedule_rejects_invalid, schedules_run_on_a_real_pipeline
# must-keep: bubble_fraction_values, simulate_pipeline_makespan_and_bubble, simulate_pipeline_peak_in_flight, simulate_pipeline_rejects_invalid
@@ -1,3 +1,3 @@
-def pipeline_schedule(num_stages, num_microbatches, kind, num_chunks=1):
+def pipeline_schedule(num_stages, num_microbatches, kind, num_chunks=1)
     """One list per stage of (op, microbatch, chunk) tuples: GPipe, 1F1B or interleaved 1F1B (Megatron-LM §2.2)."""
     p, m, v = num_stages, num_microbatches, num_chunks
