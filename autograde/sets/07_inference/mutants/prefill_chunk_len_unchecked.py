# replaces: prefill_time
# wrong: accepts a chunk_len that does not divide the prompt (a shorter last chunk counted as a whole one) or is not
#   positive
# must-lose: prefill_time_rejects_bad_input
# must-keep: prefill_time_compute_bound, prefill_time_chunks_in_a_pipeline, prefill_time_unequal_stages,
#   best_config_keeps_first_token_promise
@@ -18,6 +18,5 @@
     if chunk_len is None:
         chunk_len = prompt_len
-    if type(chunk_len) is not int or chunk_len <= 0 or prompt_len % chunk_len:
-        raise ValueError(f"chunk_len must be a positive int that divides prompt_len={prompt_len}, got {chunk_len!r}")
+    chunk_len = max(int(chunk_len), 1)
     per_layer = (model["n_params"] - 2 * embedding) / n_layers
     activation = chunk_len * model["d_model"] * nbytes
@@ -28,5 +27,5 @@
     hop = hardware["link_latency"] + activation / hardware["link_bandwidth"]
     finished = [0.0] * pp  # when each stage finished its latest chunk
-    for _ in range(prompt_len // chunk_len):
+    for _ in range(-(-prompt_len // chunk_len)):
         arrived = 0.0  # the first stage has every chunk at time 0
         for stage in range(pp):
