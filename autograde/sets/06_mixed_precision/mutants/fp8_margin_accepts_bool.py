# replaces: delayed_scale
# wrong: checks margin with isinstance(margin, int), which a bool passes: margin=True is taken as a margin of 1 where
#   the statement asks for a non-negative int and rejects a bool (issue 47.9)
# must-lose: delayed_scale_rejects_bad_input
# must-keep: delayed_scale_formula, delayed_scale_keeps_previous_scale, spike_cost_margin, spike_cost_steps,
#   spike_cost_rejects_bad_input
@@ -3,5 +3,5 @@
     if not (fp8_max > 0 and math.isfinite(fp8_max)):
         raise ValueError(f"fp8_max must be positive and finite, got {fp8_max!r}")
-    if type(margin) is not int or margin < 0:
+    if not isinstance(margin, int) or margin < 0:  # wrong: True is an int to isinstance
         raise ValueError(f"margin must be a non-negative int, got {margin!r}")
     if algo not in ("max", "most_recent"):
