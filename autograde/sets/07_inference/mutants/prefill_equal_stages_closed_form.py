# replaces: prefill_time
# wrong: the closed form of equal stages, (chunks + pp - 1) times the slowest stage and the hops: with the output
#   layer on the last stage no two stages are alike, and the faster ones do not cost the slowest one's time
# must-lose: prefill_time_compute_bound, prefill_time_chunks_in_a_pipeline, prefill_time_unequal_stages
# must-keep: prefill_time_rejects_bad_input
@@ -27,12 +27,10 @@
                       + 2 * (tp - 1) * hardware["link_latency"])
     hop = hardware["link_latency"] + activation / hardware["link_bandwidth"]
-    finished = [0.0] * pp  # when each stage finished its latest chunk
-    for _ in range(prompt_len // chunk_len):
-        arrived = 0.0  # the first stage has every chunk at time 0
-        for stage in range(pp):
+    times, chunks = [], prompt_len // chunk_len
+    for stage in range(pp):
+        if True:
             layers = n_layers // pp + (1 if stage < n_layers % pp else 0)
             params = (layers * per_layer + (embedding if stage == pp - 1 else 0)) / tp  # no KV cache to read yet
             seconds = max(params * nbytes / hardware["hbm_bandwidth"], 2 * params * chunk_len / hardware["flops"])
-            finished[stage] = max(finished[stage], arrived) + seconds + layers * 2 * all_reduce
-            arrived = finished[stage] + hop
-    return finished[-1]
+            times.append(seconds + layers * 2 * all_reduce)
+    return (chunks + pp - 1) * max(times) + (pp - 1) * hop
