# replaces: DynamicLossScaler
# wrong: a second unscale_() before update() divides the gradients by S again instead of raising RuntimeError
# must-lose: scaler_skips_overflowing_steps
# must-keep: scaler_matches_gradscaler, scaler_scales_and_unscales
@@ -20,6 +20,4 @@

     def unscale_(self, optimizer):
-        if self._unscaled:
-            raise RuntimeError("unscale_() has already been called on this optimizer since the last update()")
         inv_scale = float(torch.tensor(1.0 / self._scale, dtype=torch.float32))  # scale.double().reciprocal().float()
         for group in optimizer.param_groups:
