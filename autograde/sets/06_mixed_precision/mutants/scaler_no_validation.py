# replaces: DynamicLossScaler
# wrong: accepts any arguments (no ValueError)
# must-lose: scaler_rejects_bad_arguments
# must-keep: scaler_matches_gradscaler, scaler_scales_and_unscales
@@ -3,12 +3,4 @@

     def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
-        if not init_scale > 0:
-            raise ValueError(f"init_scale must be positive, got {init_scale}")
-        if not growth_factor > 1:
-            raise ValueError(f"growth_factor must be > 1, got {growth_factor}")
-        if not 0 < backoff_factor < 1:
-            raise ValueError(f"backoff_factor must be strictly between 0 and 1, got {backoff_factor}")
-        if not (isinstance(growth_interval, int) and growth_interval > 0):
-            raise ValueError(f"growth_interval must be a positive integer, got {growth_interval!r}")
         self._scale = float(torch.tensor(init_scale, dtype=torch.float32))  # S is an fp32 number, as in GradScaler
         self.growth_factor, self.backoff_factor, self.growth_interval = growth_factor, backoff_factor, growth_interval
