# replaces: decode_step_time
# wrong: leaves out the ring's 2(tp - 1) latencies in each all-reduce
# must-lose: decode_step_time_full_model
# must-keep: decode_step_time_weights_bound
@@ -18,6 +18,5 @@
     activation = batch * model["d_model"] * nbytes
     if tp > 1:
-        all_reduce = (2 * (tp - 1) / tp * activation / hardware["link_bandwidth"]
-                      + 2 * (tp - 1) * hardware["link_latency"])
+        all_reduce = (2 * (tp - 1) / tp * activation / hardware["link_bandwidth"])
         stage += layers * 2 * all_reduce
     hop = hardware["link_latency"] + activation / hardware["link_bandwidth"]
