# replaces: prefill_time
# wrong: all-reduces one token's activations per layer, as in a decode step of batch 1, not the chunk's
# must-lose: prefill_time_compute_bound, prefill_time_chunks_in_a_pipeline
# must-keep: prefill_time_rejects_bad_input
@@ -21,5 +21,5 @@
         raise ValueError(f"chunk_len must be a positive int that divides prompt_len={prompt_len}, got {chunk_len!r}")
     per_layer = (model["n_params"] - 2 * embedding) / n_layers
-    activation = chunk_len * model["d_model"] * nbytes
+    activation = model["d_model"] * nbytes
     all_reduce = 0.0
     if tp > 1:
