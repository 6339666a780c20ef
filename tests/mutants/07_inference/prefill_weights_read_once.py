# replaces: prefill_time
# wrong: reads a stage's weights once for the whole prompt, shared by its chunks, instead
#   of once per chunk
# must-lose: prefill_time_chunks_in_a_pipeline
# must-keep: prefill_time_compute_bound, prefill_time_rejects_bad_input, best_config_keeps_first_token_promise
@@ -16,5 +16,5 @@
         raise ValueError(f"chunk_len must be a positive int that divides prompt_len={prompt_len}, got {chunk_len!r}")
     layers, nbytes = model["n_layers"] // pp, model["bytes_per_param"]
-    weight_bytes = model["n_params"] * nbytes / (tp * pp)
+    weight_bytes = model["n_params"] * nbytes / (tp * pp) / (prompt_len // chunk_len)
     flops = 2 * model["n_params"] * chunk_len / (tp * pp)
     stage = max(weight_bytes / hardware["hbm_bandwidth"], flops / hardware["flops"])   # one chunk in one stage
