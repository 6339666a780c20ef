# replaces: daly_interval
# wrong: rejects only values <= 0: a NaN or infinite cost or MTBF gives a NaN or infinite interval instead of the
#   ValueError the statement asks for ("finite and greater than zero"; a visible case now tries them, issue 47.6)
# must-lose: daly_interval_values
# must-keep: young_interval_values
@@ -2,5 +2,5 @@
     """Daly (2006): the higher-order optimum checkpoint interval, in seconds; the MTBF when cost >= 2 * MTBF."""
     for name, value in (("checkpoint_cost_s", checkpoint_cost_s), ("mtbf_s", mtbf_s)):
-        if not (math.isfinite(value) and value > 0):
+        if value <= 0:  # wrong: NaN and inf pass
             raise ValueError(f"{name} must be a finite number of seconds > 0, got {value!r}")
     if checkpoint_cost_s >= 2 * mtbf_s:
