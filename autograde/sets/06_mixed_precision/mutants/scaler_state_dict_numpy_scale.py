# replaces: DynamicLossScaler
# wrong: state_dict() keeps the scale as a numpy.float32: torch.load(weights_only=True) refuses it, so the scaler
#   cannot come back from a checkpoint (the visible check makes the same round trip)
# must-lose: scaler_state_dict_resumes
# must-keep: scaler_matches_gradscaler, scaler_skips_overflowing_steps, scaler_scales_and_unscales
@@ -54,9 +54,12 @@

     def state_dict(self):
-        return {"scale": self._scale, "growth_factor": self.growth_factor, "backoff_factor": self.backoff_factor,
-                "growth_interval": self.growth_interval, "_growth_tracker": self._clean_steps}  # GradScaler's keys
+        import numpy
+
+        return {"scale": numpy.float32(self._scale), "growth_factor": self.growth_factor,  # BUG: a NumPy number
+                "backoff_factor": self.backoff_factor, "growth_interval": self.growth_interval,
+                "_growth_tracker": self._clean_steps}

     def load_state_dict(self, state):
         self._scale = float(torch.tensor(state["scale"], dtype=torch.float32))
         self.growth_factor, self.backoff_factor = state["growth_factor"], state["backoff_factor"]
-        self.growth_interval, self._clean_steps = state["growth_interval"], state["_growth_tracker"]
+        self.growth_interval, self._clean_steps = state["growth_interval"], state["_growth_tracker"]
\ No newline at end of file
