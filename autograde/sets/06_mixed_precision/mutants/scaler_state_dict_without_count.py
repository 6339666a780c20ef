# replaces: DynamicLossScaler
# wrong: state_dict() leaves out the count of clean steps: a resumed scaler starts its growth interval again
# must-lose: scaler_state_dict_resumes
# must-keep: scaler_matches_gradscaler, scaler_at_the_top_of_fp32
@@ -55,8 +55,8 @@
     def state_dict(self):
         return {"scale": self._scale, "growth_factor": self.growth_factor, "backoff_factor": self.backoff_factor,
-                "growth_interval": self.growth_interval, "_growth_tracker": self._clean_steps}  # GradScaler's keys
+                "growth_interval": self.growth_interval}

     def load_state_dict(self, state):
         self._scale = float(torch.tensor(state["scale"], dtype=torch.float32))
         self.growth_factor, self.backoff_factor = state["growth_factor"], state["backoff_factor"]
-        self.growth_interval, self._clean_steps = state["growth_interval"], state["_growth_tracker"]
+        self.growth_interval, self._clean_steps = state["growth_interval"], 0
