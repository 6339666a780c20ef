# replaces: pipeline_schedule
# wrong: accepts num_chunks > 1 for gpipe and 1f1b (and silently builds chunk 0 only)
# must-lose: pipeline_schedule_rejects_invalid
# must-keep: pipeline_schedule_gpipe_and_1f1b, pipeline_schedule_interleaved, schedules_run_on_a_real_pipeline
@@ -7,6 +7,4 @@
     if kind not in ("gpipe", "1f1b", "interleaved"):
         raise ValueError(f"kind must be 'gpipe', '1f1b' or 'interleaved', got {kind!r}")
-    if kind != "interleaved" and v != 1:
-        raise ValueError(f"{kind} runs one chunk per stage, got num_chunks={v}")
     if kind == "interleaved" and (v < 2 or m % p):
         raise ValueError(f"interleaved needs num_chunks >= 2 (got {v}) and num_microbatches a multiple of "
