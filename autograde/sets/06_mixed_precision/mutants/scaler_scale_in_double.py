# replaces: DynamicLossScaler
# wrong: keeps the scale as a Python float (double precision), never rounded to fp32: 12345.678 and products like S *
#   0.3 differ from GradScaler's
# must-lose: scaler_scales_and_unscales, scaler_at_the_top_of_fp32
# must-keep: scaler_matches_gradscaler
@@ -11,5 +11,5 @@
         if not (isinstance(growth_interval, int) and growth_interval > 0):
             raise ValueError(f"growth_interval must be a positive integer, got {growth_interval!r}")
-        self._scale = float(torch.tensor(init_scale, dtype=torch.float32))  # S is an fp32 number, as in GradScaler
+        self._scale = float(init_scale)  # S is an fp32 number, as in GradScaler
         self.growth_factor, self.backoff_factor, self.growth_interval = growth_factor, backoff_factor, growth_interval
         self._clean_steps = 0  # steps without inf/NaN since S last changed (GradScaler's "growth tracker")
@@ -22,5 +22,5 @@
         if self._unscaled:
             raise RuntimeError("unscale_() has already been called on this optimizer since the last update()")
-        inv_scale = float(torch.tensor(1.0 / self._scale, dtype=torch.float32))  # scale.double().reciprocal().float()
+        inv_scale = float(1.0 / self._scale)  # scale.double().reciprocal().float()
         for group in optimizer.param_groups:
             for p in group["params"]:
@@ -39,11 +39,11 @@
     def update(self):
         if self._found_inf:
-            self._scale = float(torch.tensor(self._scale * self.backoff_factor, dtype=torch.float32))
+            self._scale = float(self._scale * self.backoff_factor)
             self._clean_steps = 0
         else:
             self._clean_steps += 1
             if self._clean_steps == self.growth_interval:
-                grown = float(torch.tensor(self._scale * self.growth_factor, dtype=torch.float32))
-                if math.isfinite(grown):  # at the top of fp32, S stays where it is
+                grown = float(self._scale * self.growth_factor)
+                if grown <= torch.finfo(torch.float32).max:  # at the top of fp32, S stays where it is
                     self._scale = grown
                 self._clean_steps = 0
@@ -58,5 +58,5 @@

     def load_state_dict(self, state):
-        self._scale = float(torch.tensor(state["scale"], dtype=torch.float32))
+        self._scale = float(state["scale"])
         self.growth_factor, self.backoff_factor = state["growth_factor"], state["backoff_factor"]
         self.growth_interval, self._clean_steps = state["growth_interval"], state["_growth_tracker"]
