# replaces: spike_cost
# wrong: saturation taken as amax >= 2^margin * chosen instead of >: a jump of exactly 2^k asks for k + 1
# must-lose: spike_cost_margin
# must-keep: spike_cost_steps, spike_cost_rejects_bad_input, delayed_scale_rejects_bad_input
@@ -15,5 +15,5 @@

     margin = 0
-    while amaxes[spike_step] > math.ldexp(chosen(spike_step), margin):  # saturates: amax > 2^margin * chosen
+    while amaxes[spike_step] >= math.ldexp(chosen(spike_step), margin):  # saturates: amax > 2^margin * chosen
         margin += 1
     later = range(spike_step + 1, min(len(amaxes), spike_step + history_len + 1))  # windows that hold the spike
