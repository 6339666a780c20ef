# replaces: copy_to_tp_region
# wrong: f all-reduces in both directions (forward too): the full input becomes t times itself
# must-lose: copy_to_tp_region_forward_backward, tp_mlp_matches_single_process
# must-keep: reduce_from_tp_region_forward_backward, column_parallel_matches_linear, row_parallel_matches_linear
@@ -4,5 +4,7 @@
         @staticmethod
         def forward(ctx, x):
-            return x.view_as(x)  # a new tensor object, the same values
+            total = x.clone()
+            dist.all_reduce(total, group=group)
+            return total

         @staticmethod
