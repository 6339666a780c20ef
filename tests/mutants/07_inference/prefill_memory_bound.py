# replaces: prefill_time
# wrong: times the stage by its weight reads only, as decode at batch 1 (a long prompt is
#   compute-bound)
# must-lose: prefill_time_compute_bound, prefill_time_chunks_in_a_pipeline
# must-keep: prefill_time_rejects_bad_input
@@ -18,5 +18,5 @@
     weight_bytes = model["n_params"] * nbytes / (tp * pp)
     flops = 2 * model["n_params"] * chunk_len / (tp * pp)
-    stage = max(weight_bytes / hardware["hbm_bandwidth"], flops / hardware["flops"])   # one chunk in one stage
+    stage = weight_bytes / hardware["hbm_bandwidth"]   # one chunk in one stage
     activation = chunk_len * model["d_model"] * nbytes
     if tp > 1:
