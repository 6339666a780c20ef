# replaces: DynamicLossScaler
# wrong: checks the count against growth_interval before counting the step, so the scale grows after growth_interval +
#   1 clean steps
# must-lose: scaler_matches_gradscaler, scaler_at_the_top_of_fp32
# must-keep: scaler_scales_and_unscales
@@ -42,5 +42,4 @@
             self._clean_steps = 0
         else:
-            self._clean_steps += 1
             if self._clean_steps == self.growth_interval:
                 grown = float(torch.tensor(self._scale * self.growth_factor, dtype=torch.float32))
@@ -48,4 +47,6 @@
                     self._scale = grown
                 self._clean_steps = 0
+            else:
+                self._clean_steps += 1
         self._unscaled = self._found_inf = False

