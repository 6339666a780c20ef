# replaces: elastic_plan
# wrong: tries only all world_size ranks: None where fewer ranks would keep the batch
# must-lose: elastic_plan_values
# must-keep: elastic_plan_impossible, elastic_plan_rejects_bad_input
@@ -6,5 +6,5 @@
         if type(value) is not int or value < 1:
             raise ValueError(f"{arg} must be an int >= 1, got {value!r}")
-    for ranks in range(world_size, 0, -1):  # the most ranks first
+    for ranks in [world_size]:
         if global_batch % ranks:
             continue
