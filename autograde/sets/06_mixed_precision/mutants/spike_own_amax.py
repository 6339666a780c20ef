# replaces: spike_cost
# wrong: no delay: a step's window ends with its own amax (the steps up to and including it), so a spike is always
#   absorbed by a margin of 0, and it sets the scale of history_len - 1 later steps instead of history_len
# must-lose: spike_cost_margin, spike_cost_steps
# must-keep: delayed_scale_formula, delayed_scale_keeps_previous_scale, spike_cost_rejects_bad_input,
#   delayed_scale_rejects_bad_input
@@ -11,5 +11,5 @@

     def chosen(step):  # the amax that step's scale is computed from: its window holds the steps before it
-        window = amaxes[max(0, step - history_len):step]
+        window = amaxes[max(0, step + 1 - history_len):step + 1]
         return window[-1] if algo == "most_recent" else max(window)

