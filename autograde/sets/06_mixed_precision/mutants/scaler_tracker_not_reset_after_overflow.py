# replaces: DynamicLossScaler
# wrong: an overflow backs the scale off but leaves the count of clean steps where it was, so the scale grows too soon
#   after an overflow
# must-lose: scaler_matches_gradscaler
# must-keep: scaler_scales_and_unscales, scaler_rejects_bad_arguments
@@ -40,5 +40,4 @@
         if self._found_inf:
             self._scale = float(torch.tensor(self._scale * self.backoff_factor, dtype=torch.float32))
-            self._clean_steps = 0
         else:
             self._clean_steps += 1
