# replaces: DynamicLossScaler
# wrong: unscale_ walks optimizer.param_groups[0] only: with a second group its gradients stay S times too large and
#   an inf there is never seen
# must-lose: scaler_skips_overflowing_steps
# must-keep: scaler_matches_gradscaler, scaler_scales_and_unscales, scaler_state_dict_resumes
@@ -23,9 +23,8 @@
             raise RuntimeError("unscale_() has already been called on this optimizer since the last update()")
         inv_scale = float(torch.tensor(1.0 / self._scale, dtype=torch.float32))  # scale.double().reciprocal().float()
-        for group in optimizer.param_groups:
-            for p in group["params"]:
-                if p.grad is not None:
-                    self._found_inf |= not bool(torch.isfinite(p.grad).all())
-                    p.grad.mul_(inv_scale)
+        for p in optimizer.param_groups[0]["params"]:  # BUG: the other param groups are never unscaled
+            if p.grad is not None:
+                self._found_inf |= not bool(torch.isfinite(p.grad).all())
+                p.grad.mul_(inv_scale)
         self._unscaled = True

@@ -60,3 +59,3 @@
         self._scale = float(torch.tensor(state["scale"], dtype=torch.float32))
         self.growth_factor, self.backoff_factor = state["growth_factor"], state["backoff_factor"]
-        self.growth_interval, self._clean_steps = state["growth_interval"], state["_growth_tracker"]
+        self.growth_interval, self._clean_steps = state["growth_interval"], state["_growth_tracker"]
\ No newline at end of file
