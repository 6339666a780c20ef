# replaces: ring_all_reduce_cost
# wrong: rounds bytes_sent_per_rank to a whole byte: 1333 for 3 ranks and 1000 bytes, where the statement asks for the
#   mean over ranks, not rounded (1333.33...; issue 47.5)
# must-lose: ring_all_reduce_cost_values
@@ -10,3 +10,4 @@
     if nbytes < 0:
         raise ValueError(f"nbytes must be non-negative, got {nbytes}")
-    return {"bytes_sent_per_rank": 2 * (world_size - 1) / world_size * nbytes, "steps": 2 * (world_size - 1)}
+    return {"bytes_sent_per_rank": round(2 * (world_size - 1) / world_size * nbytes),  # wrong: rounded
+            "steps": 2 * (world_size - 1)}
