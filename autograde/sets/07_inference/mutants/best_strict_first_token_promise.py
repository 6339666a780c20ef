# replaces: best_config
# wrong: keeps a configuration only when its prefill is strictly shorter than the first-token promise; the
#   statement says <=
# must-lose: best_config_keeps_first_token_promise
# must-keep: best_config_is_the_best, best_config_slo_memory_ties, best_config_rejects_bad_input
@@ -24,5 +24,5 @@
             except ValueError:
                 continue
-            if ttft_slo_ms is not None and 1000 * prefill_time(model, hardware, tp, pp, prompt_len) > ttft_slo_ms:
+            if ttft_slo_ms is not None and 1000 * prefill_time(model, hardware, tp, pp, prompt_len) >= ttft_slo_ms:
                 continue
             devices = []  # (weight bytes, KV bytes per sequence) of a device of each stage
