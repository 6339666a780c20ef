# replaces: DynamicLossScaler
# wrong: grows the scale without checking that it stays finite in fp32: at the top it becomes inf, and every later
#   step overflows
# must-lose: scaler_at_the_top_of_fp32, scaler_matches_gradscaler
# must-keep: scaler_scales_and_unscales
@@ -45,6 +45,5 @@
             if self._clean_steps == self.growth_interval:
                 grown = float(torch.tensor(self._scale * self.growth_factor, dtype=torch.float32))
-                if math.isfinite(grown):  # at the top of fp32, S stays where it is
-                    self._scale = grown
+                self._scale = grown
                 self._clean_steps = 0
         self._unscaled = self._found_inf = False
