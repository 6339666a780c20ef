# replaces: copy_to_tp_region
# wrong: f's forward broadcasts the input from the group's first rank: the values are right (the input is the same on
#   every rank) but every forward pays a broadcast f does not need; the check counts what each pass moves
# must-lose: copy_to_tp_region_forward_backward
# must-keep: reduce_from_tp_region_forward_backward
@@ -4,9 +4,12 @@
         @staticmethod
         def forward(ctx, x):
-            return x.view_as(x)  # a new tensor object, the same values
+            out = x.clone()
+            first = 0 if group is None else dist.get_global_rank(group, 0)
+            dist.broadcast(out, src=first, group=group)  # BUG: every rank already holds the input
+            return out

         @staticmethod
         def backward(ctx, grad):
-            grad = grad.clone()  # all_reduce works in place; autograd may still need the incoming gradient
+            grad = grad.clone()
             dist.all_reduce(grad, group=group)
             return grad
