# replaces: prefill_time
# wrong: reads a stage's weights once for the whole prompt, shared by its chunks, instead of once per chunk
# must-lose: prefill_time_chunks_in_a_pipeline
# must-keep: prefill_time_compute_bound, prefill_time_rejects_bad_input, best_config_keeps_first_token_promise
@@ -33,5 +33,6 @@
             layers = n_layers // pp + (1 if stage < n_layers % pp else 0)
             params = (layers * per_layer + (embedding if stage == pp - 1 else 0)) / tp  # no KV cache to read yet
-            seconds = max(params * nbytes / hardware["hbm_bandwidth"], 2 * params * chunk_len / hardware["flops"])
+            seconds = max(params * nbytes / (prompt_len // chunk_len) / hardware["hbm_bandwidth"],
+                          2 * params * chunk_len / hardware["flops"])
             finished[stage] = max(finished[stage], arrived) + seconds + layers * 2 * all_reduce
             arrived = finished[stage] + hop
