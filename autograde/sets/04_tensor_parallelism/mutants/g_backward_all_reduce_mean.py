# replaces: reduce_from_tp_region
# wrong: g's backward all-reduces the gradient and divides by t: the values are right (the upstream gradient is the
#   same on every rank) but every backward pays an all-reduce it does not need; the check counts what each pass moves
# must-lose: reduce_from_tp_region_forward_backward
# must-keep: copy_to_tp_region_forward_backward, column_parallel_matches_linear
@@ -10,5 +10,7 @@
         @staticmethod
         def backward(ctx, grad):
-            return grad
+            grad = grad.clone()
+            dist.all_reduce(grad, group=group)  # BUG: the gradient is already the same everywhere
+            return grad / dist.get_world_size(group)

     return ReduceFromTPRegion.apply(x)
