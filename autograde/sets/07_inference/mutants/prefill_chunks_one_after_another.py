# replaces: prefill_time
# wrong: sends a chunk into the pipeline only when the one before has left the last stage (no overlap of the stages)
# must-lose: prefill_time_chunks_in_a_pipeline
# must-keep: prefill_time_compute_bound, prefill_time_rejects_bad_input, best_config_keeps_first_token_promise
@@ -29,5 +29,5 @@
     finished = [0.0] * pp  # when each stage finished its latest chunk
     for _ in range(prompt_len // chunk_len):
-        arrived = 0.0  # the first stage has every chunk at time 0
+        arrived = finished[-1]
         for stage in range(pp):
             layers = n_layers // pp + (1 if stage < n_layers % pp else 0)
