# replaces: DynamicLossScaler
# wrong: step() calls optimizer.step() even when a gradient is inf or NaN (the scale still backs off)
# must-lose: scaler_matches_gradscaler, scaler_skips_overflowing_steps, scaler_trains_the_tiny_model
# must-keep: scaler_scales_and_unscales, scaler_rejects_bad_arguments
@@ -33,6 +33,4 @@
         if not self._unscaled:
             self.unscale_(optimizer)
-        if self._found_inf:
-            return None  # skipped: these gradients would write inf or NaN into the weights
         return optimizer.step(*args, **kwargs)

