# replaces: spike_cost
# wrong: the margin is log2 of the jump rounded to the nearest int, not rounded up: a jump of 2.5 gets 1, not 2
# must-lose: spike_cost_margin
# must-keep: spike_cost_steps, spike_cost_rejects_bad_input, delayed_scale_rejects_bad_input
@@ -14,7 +14,5 @@
         return window[-1] if algo == "most_recent" else max(window)

-    margin = 0
-    while amaxes[spike_step] > math.ldexp(chosen(spike_step), margin):  # saturates: amax > 2^margin * chosen
-        margin += 1
+    margin = max(0, round(math.log2(amaxes[spike_step] / chosen(spike_step))))
     later = range(spike_step + 1, min(len(amaxes), spike_step + history_len + 1))  # windows that hold the spike
     return margin, sum(1 for step in later if chosen(step) == amaxes[spike_step])
