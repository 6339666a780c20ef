# replaces: best_config
# wrong: takes ttft_slo_ms and prompt_len, validates them, and never calls prefill_time
# must-lose: best_config_keeps_first_token_promise
# must-keep: best_config_is_the_best, best_config_slo_memory_ties, best_config_fits_every_device,
#   best_config_rejects_bad_input
@@ -24,6 +24,4 @@
             except ValueError:
                 continue
-            if ttft_slo_ms is not None and 1000 * prefill_time(model, hardware, tp, pp, prompt_len) > ttft_slo_ms:
-                continue
             devices = []  # (weight bytes, KV bytes per sequence) of a device of each stage
             for stage in range(pp):
