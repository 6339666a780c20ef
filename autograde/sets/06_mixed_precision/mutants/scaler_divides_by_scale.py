# replaces: DynamicLossScaler
# wrong: unscale_() divides the gradients by S instead of multiplying them by float32(1/S), as GradScaler does: the
#   last bit differs when S is not a power of two
# must-lose: scaler_scales_and_unscales
# must-keep: scaler_matches_gradscaler, scaler_rejects_bad_arguments
@@ -27,5 +27,5 @@
                 if p.grad is not None:
                     self._found_inf |= not bool(torch.isfinite(p.grad).all())
-                    p.grad.mul_(inv_scale)
+                    p.grad.div_(self._scale)
         self._unscaled = True

