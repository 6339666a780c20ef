# replaces: prefill_time
# wrong: times the stage by its weight reads only, as decode at batch 1 (a long prompt is compute-bound)
# must-lose: prefill_time_compute_bound, prefill_time_chunks_in_a_pipeline
# must-keep: prefill_time_rejects_bad_input
@@ -33,5 +33,5 @@
             layers = n_layers // pp + (1 if stage < n_layers % pp else 0)
             params = (layers * per_layer + (embedding if stage == pp - 1 else 0)) / tp  # no KV cache to read yet
-            seconds = max(params * nbytes / hardware["hbm_bandwidth"], 2 * params * chunk_len / hardware["flops"])
+            seconds = params * nbytes / hardware["hbm_bandwidth"]
             finished[stage] = max(finished[stage], arrived) + seconds + layers * 2 * all_reduce
             arrived = finished[stage] + hop
