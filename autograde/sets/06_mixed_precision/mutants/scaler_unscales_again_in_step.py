# replaces: DynamicLossScaler
# wrong: step() divides the gradients by S again when unscale_() was already called this step
# must-lose: scaler_matches_gradscaler, scaler_skips_overflowing_steps
# must-keep: scaler_scales_and_unscales, scaler_trains_the_tiny_model
@@ -31,6 +31,6 @@

     def step(self, optimizer, *args, **kwargs):
-        if not self._unscaled:
-            self.unscale_(optimizer)
+        self._unscaled = False  # forgets an earlier unscale_()
+        self.unscale_(optimizer)
         if self._found_inf:
             return None  # skipped: these gradients would write inf or NaN into the weights
