# replaces: spike_cost
# wrong: the steps are counted as with "max" whatever algo is: "most_recent" holds a spike for history_len steps too
# must-lose: spike_cost_steps
# must-keep: spike_cost_margin, spike_cost_rejects_bad_input, delayed_scale_rejects_bad_input
@@ -18,3 +18,3 @@
         margin += 1
     later = range(spike_step + 1, min(len(amaxes), spike_step + history_len + 1))  # windows that hold the spike
-    return margin, sum(1 for step in later if chosen(step) == amaxes[spike_step])
+    return margin, sum(1 for step in later if max(amaxes[max(0, step - history_len):step]) == amaxes[spike_step])
