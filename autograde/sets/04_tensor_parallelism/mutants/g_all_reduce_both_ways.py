# replaces: reduce_from_tp_region
# wrong: g all-reduces the gradient backward too: the input gradient is t times too large
# must-lose: reduce_from_tp_region_forward_backward, tp_mlp_matches_single_process
# must-keep: copy_to_tp_region_forward_backward, row_parallel_matches_linear, column_parallel_matches_linear
@@ -10,4 +10,6 @@
         @staticmethod
         def backward(ctx, grad):
+            grad = grad.clone()
+            dist.all_reduce(grad, group=group)
             return grad

