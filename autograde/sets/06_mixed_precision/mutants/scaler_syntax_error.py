# replaces: DynamicLossScaler
# wrong: does not compile (a missing colon), so DynamicLossScaler is never defined
# must-zero: scaler_scales_and_unscales, scaler_matches_gradscaler, scaler_skips_overflowing_steps,
#   scaler_at_the_top_of_fp32, scaler_state_dict_resumes, scaler_rejects_bad_arguments, scaler_trains_the_tiny_model
# must-keep: assign_buckets_examples, assign_buckets_matches_ddp, assign_buckets_rejects_bad_input
@@ -37,5 +37,5 @@
         return optimizer.step(*args, **kwargs)

-    def update(self):
+    def update(self)
         if self._found_inf:
             self._scale = float(torch.tensor(self._scale * self.backoff_factor, dtype=torch.float32))
