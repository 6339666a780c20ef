# replaces: DynamicLossScaler
# wrong: looks for inf only (torch.isinf): a NaN gradient is stepped on, and the scale does not back off
# must-lose: scaler_matches_gradscaler, scaler_skips_overflowing_steps
# must-keep: scaler_scales_and_unscales
@@ -26,5 +26,5 @@
             for p in group["params"]:
                 if p.grad is not None:
-                    self._found_inf |= not bool(torch.isfinite(p.grad).all())
+                    self._found_inf |= bool(torch.isinf(p.grad).any())
                     p.grad.mul_(inv_scale)
         self._unscaled = True
