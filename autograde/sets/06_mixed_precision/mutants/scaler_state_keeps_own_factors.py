# replaces: DynamicLossScaler
# wrong: load_state_dict() restores the scale and the count but keeps the factors and interval the new scaler was
#   built with
# must-lose: scaler_state_dict_resumes
# must-keep: scaler_matches_gradscaler
@@ -59,4 +59,3 @@
     def load_state_dict(self, state):
         self._scale = float(torch.tensor(state["scale"], dtype=torch.float32))
-        self.growth_factor, self.backoff_factor = state["growth_factor"], state["backoff_factor"]
-        self.growth_interval, self._clean_steps = state["growth_interval"], state["_growth_tracker"]
+        self._clean_steps = state["_growth_tracker"]
