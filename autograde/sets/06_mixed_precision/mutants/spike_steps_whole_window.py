# replaces: spike_cost
# wrong: counts every later step whose window holds the spike (history_len of them, fewer at the end of the run),
#   even where a larger amax in that window sets the scale instead
# must-lose: spike_cost_steps
# must-keep: spike_cost_margin, spike_cost_rejects_bad_input, delayed_scale_rejects_bad_input
@@ -18,3 +18,3 @@
         margin += 1
     later = range(spike_step + 1, min(len(amaxes), spike_step + history_len + 1))  # windows that hold the spike
-    return margin, sum(1 for step in later if chosen(step) == amaxes[spike_step])
+    return margin, len(later) if algo == "max" else min(1, len(later))
