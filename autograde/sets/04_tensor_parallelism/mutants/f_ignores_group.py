# replaces: copy_to_tp_region
# wrong: f all-reduces over every rank, not over `group`: right while the group is the whole world, wrong in a subgroup
# must-lose: copy_to_tp_region_forward_backward
# must-keep: reduce_from_tp_region_forward_backward
@@ -9,5 +9,5 @@
         def backward(ctx, grad):
             grad = grad.clone()  # all_reduce works in place; autograd may still need the incoming gradient
-            dist.all_reduce(grad, group=group)
+            dist.all_reduce(grad)
             return grad

