# replaces: best_config
# wrong: takes ttft_slo_ms and prompt_len, validates them, and never calls prefill_time
# must-lose: best_config_keeps_first_token_promise
# must-keep: best_config_is_the_best, best_config_slo_memory_ties, best_config_rejects_bad_input
@@ -21,6 +21,4 @@
             except ValueError:
                 continue
-            if ttft_slo_ms is not None and 1000 * prefill_time(model, hardware, tp, pp, prompt_len) > ttft_slo_ms:
-                continue
             layers, nbytes = model["n_layers"] // pp, model["bytes_per_param"]
             weights = model["n_params"] * nbytes / (tp * pp)
@@ -38,3 +36,3 @@
     most = max(c["tokens_per_s"] for c in found)
     ties = [c for c in found if c["tokens_per_s"] >= most * (1 - 1e-9)]
-    return min(ties, key=lambda c: (c["tp"] * c["pp"], c["batch"], c["tp"]))
+    return min(ties, key=lambda c: (c["tp"] * c["pp"], c["batch"], c["tp"]))
\ No newline at end of file
