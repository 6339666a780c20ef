# replaces: reduce_from_tp_region
# wrong: g all-reduces its input in place (the caller's partial sum is overwritten) and returns it
# must-lose: reduce_from_tp_region_forward_backward
# must-keep: copy_to_tp_region_forward_backward
@@ -4,7 +4,7 @@
         @staticmethod
         def forward(ctx, x):
-            total = x.clone()
+            total = x
             dist.all_reduce(total, group=group)
-            return total
+            return total.view_as(total)

         @staticmethod
