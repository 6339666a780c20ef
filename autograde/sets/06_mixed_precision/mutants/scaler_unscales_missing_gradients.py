# replaces: DynamicLossScaler
# wrong: unscale_ does not skip a parameter without a gradient (.grad is None): it raises on a frozen or unused one
# must-lose: scaler_skips_overflowing_steps
# must-keep: scaler_matches_gradscaler, scaler_scales_and_unscales, scaler_state_dict_resumes
@@ -24,8 +24,7 @@
         inv_scale = float(torch.tensor(1.0 / self._scale, dtype=torch.float32))  # scale.double().reciprocal().float()
         for group in optimizer.param_groups:
-            for p in group["params"]:
-                if p.grad is not None:
-                    self._found_inf |= not bool(torch.isfinite(p.grad).all())
-                    p.grad.mul_(inv_scale)
+            for p in group["params"]:  # BUG: a parameter without a gradient (frozen, unused) raises
+                self._found_inf |= not bool(torch.isfinite(p.grad).all())
+                p.grad.mul_(inv_scale)
         self._unscaled = True

@@ -60,3 +59,3 @@
         self._scale = float(torch.tensor(state["scale"], dtype=torch.float32))
         self.growth_factor, self.backoff_factor = state["growth_factor"], state["backoff_factor"]
-        self.growth_interval, self._clean_steps = state["growth_interval"], state["_growth_tracker"]
+        self.growth_interval, self._clean_steps = state["growth_interval"], state["_growth_tracker"]
\ No newline at end of file
