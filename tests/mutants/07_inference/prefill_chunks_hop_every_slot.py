# replaces: prefill_time
# wrong: charges a hop between every two consecutive stage times of the schedule
#   (chunks + pp - 2 hops) instead of the last chunk's pp - 1
# must-lose: prefill_time_chunks_in_a_pipeline
# must-keep: prefill_time_compute_bound, prefill_time_rejects_bad_input, best_config_keeps_first_token_promise
@@ -27,3 +27,3 @@
     # Stage j starts chunk i at j * (stage + hop) + i * stage: the chunk arrives just as the stage finishes the one
     # before, so the last chunk leaves the last stage after (chunks + pp - 1) stage times and pp - 1 hops
-    return (prompt_len // chunk_len + pp - 1) * stage + (pp - 1) * hop
+    return (prompt_len // chunk_len + pp - 1) * stage + (prompt_len // chunk_len + pp - 2) * hop
