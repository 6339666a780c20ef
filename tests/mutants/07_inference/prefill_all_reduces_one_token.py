# replaces: prefill_time
# wrong: all-reduces one token's activations per layer, as in a decode step of batch 1,
#   not the chunk's
# must-lose: prefill_time_compute_bound, prefill_time_chunks_in_a_pipeline
# must-keep: prefill_time_rejects_bad_input
@@ -19,5 +19,5 @@
     flops = 2 * model["n_params"] * chunk_len / (tp * pp)
     stage = max(weight_bytes / hardware["hbm_bandwidth"], flops / hardware["flops"])   # one chunk in one stage
-    activation = chunk_len * model["d_model"] * nbytes
+    activation = model["d_model"] * nbytes
     if tp > 1:
         all_reduce = (2 * (tp - 1) / tp * activation / hardware["link_bandwidth"]
