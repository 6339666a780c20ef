# replaces: DynamicLossScaler
# wrong: scale(loss) returns the loss unchanged and unscale_() only checks the gradients: nothing is ever scaled, so
#   small fp16 gradients still flush to zero
# must-lose: scaler_scales_and_unscales, scaler_matches_gradscaler
# must-keep: scaler_rejects_bad_arguments
@@ -17,5 +17,5 @@

     def scale(self, loss):
-        return loss * self._scale
+        return loss

     def unscale_(self, optimizer):
@@ -27,5 +27,4 @@
                 if p.grad is not None:
                     self._found_inf |= not bool(torch.isfinite(p.grad).all())
-                    p.grad.mul_(inv_scale)
         self._unscaled = True

