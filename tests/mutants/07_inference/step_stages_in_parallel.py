# replaces: decode_step_time
# wrong: counts the pp stages as if they ran at the same time (one stage's time, not the sum)
# must-lose: decode_step_time_full_model, decode_step_time_weights_bound
@@ -22,3 +22,3 @@
         stage += layers * 2 * all_reduce
     hop = hardware["link_latency"] + activation / hardware["link_bandwidth"]
-    return pp * stage + (pp - 1) * hop
+    return stage + (pp - 1) * hop
