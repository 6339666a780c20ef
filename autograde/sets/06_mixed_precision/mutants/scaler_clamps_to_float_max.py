# replaces: DynamicLossScaler
# wrong: at the top of the range, clamps the grown scale to the largest fp32 number (3.4e38) instead of keeping it
# must-lose: scaler_at_the_top_of_fp32
# must-keep: scaler_scales_and_unscales, scaler_state_dict_resumes
@@ -45,6 +45,5 @@
             if self._clean_steps == self.growth_interval:
                 grown = float(torch.tensor(self._scale * self.growth_factor, dtype=torch.float32))
-                if math.isfinite(grown):  # at the top of fp32, S stays where it is
-                    self._scale = grown
+                self._scale = min(grown, torch.finfo(torch.float32).max)
                 self._clean_steps = 0
         self._unscaled = self._found_inf = False
