# replaces: spike_cost
# wrong: checks spike_step with isinstance(spike_step, int), which a bool passes: spike_step=True is taken as
#   step 1, where the statement rejects a bool
# must-lose: spike_cost_rejects_bad_input
# must-keep: spike_cost_margin, spike_cost_steps, delayed_scale_rejects_bad_input
@@ -3,5 +3,5 @@
     if any(not (amax > 0 and math.isfinite(amax)) for amax in amaxes):
         raise ValueError(f"amaxes must be positive and finite, got {list(amaxes)}")
-    if type(spike_step) is not int or not 1 <= spike_step < len(amaxes):
+    if not isinstance(spike_step, int) or not 1 <= spike_step < len(amaxes):
         raise ValueError(f"spike_step must be an int from 1 to {len(amaxes) - 1}, got {spike_step!r}")
     if type(history_len) is not int or history_len < 1:
