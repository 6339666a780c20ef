# replaces: prefill_time
# wrong: the flow shop's closed form with a hop between every two consecutive stage times of the schedule
#   (chunks + pp - 2 hops) instead of the last chunk's pp - 1
# must-lose: prefill_time_chunks_in_a_pipeline
# must-keep: prefill_time_compute_bound, prefill_time_rejects_bad_input, best_config_keeps_first_token_promise
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
+    return sum(times) + (chunks - 1) * max(times) + (chunks + pp - 2) * hop
