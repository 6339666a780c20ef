# replaces: prefill_time
# wrong: accepts a chunk_len that does not divide the prompt (a shorter last chunk
#   counted as a whole one) or is not positive
# must-lose: prefill_time_rejects_bad_input
# must-keep: prefill_time_compute_bound, prefill_time_chunks_in_a_pipeline, best_config_keeps_first_token_promise
@@ -13,6 +13,4 @@
     if chunk_len is None:
         chunk_len = prompt_len
-    if type(chunk_len) is not int or chunk_len <= 0 or prompt_len % chunk_len:
-        raise ValueError(f"chunk_len must be a positive int that divides prompt_len={prompt_len}, got {chunk_len!r}")
     layers, nbytes = model["n_layers"] // pp, model["bytes_per_param"]
     weight_bytes = model["n_params"] * nbytes / (tp * pp)
@@ -27,3 +25,3 @@
     # Stage j starts chunk i at j * (stage + hop) + i * stage: the chunk arrives just as the stage finishes the one
     # before, so the last chunk leaves the last stage after (chunks + pp - 1) stage times and pp - 1 hops
-    return (prompt_len // chunk_len + pp - 1) * stage + (pp - 1) * hop
+    return (-(-prompt_len // max(chunk_len, 1)) + pp - 1) * stage + (pp - 1) * hop
