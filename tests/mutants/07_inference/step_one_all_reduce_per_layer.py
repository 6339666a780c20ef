# replaces: decode_step_time
# wrong: counts one all-reduce per layer (the MLP's), not two
# must-lose: decode_step_time_full_model
# must-keep: decode_step_time_weights_bound, decode_step_time_rejects_bad_input
@@ -20,5 +20,5 @@
         all_reduce = (2 * (tp - 1) / tp * activation / hardware["link_bandwidth"]
                       + 2 * (tp - 1) * hardware["link_latency"])
-        stage += layers * 2 * all_reduce
+        stage += layers * all_reduce
     hop = hardware["link_latency"] + activation / hardware["link_bandwidth"]
     return pp * stage + (pp - 1) * hop
