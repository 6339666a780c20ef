# replaces: decode_step_time
# wrong: leaves out the ring's 2(tp - 1) latencies in each all-reduce
# must-lose: decode_step_time_full_model
# must-keep: decode_step_time_weights_bound, decode_step_time_rejects_bad_input
@@ -20,6 +20,5 @@
     all_reduce = 0.0
     if tp > 1:
-        all_reduce = (2 * (tp - 1) / tp * activation / hardware["link_bandwidth"]
-                      + 2 * (tp - 1) * hardware["link_latency"])
+        all_reduce = 2 * (tp - 1) / tp * activation / hardware["link_bandwidth"]
     step = (pp - 1) * (hardware["link_latency"] + activation / hardware["link_bandwidth"])  # the hops
     for stage in range(pp):
