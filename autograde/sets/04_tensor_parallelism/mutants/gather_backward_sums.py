# replaces: ColumnParallelLinear
# wrong: gather_output's backward reduce-scatters (sums the ranks' gradients) instead of keeping this rank's block:
#   the gradients are t times too large
# must-lose: column_parallel_gather_output_backward
# must-keep: column_parallel_matches_linear, parallel_linear_rejects_indivisible
@@ -32,5 +32,7 @@
             @staticmethod
             def backward(ctx, grad):
-                return grad.chunk(dist.get_world_size(group), dim=-1)[dist.get_rank(group)].contiguous()
+                total = grad.clone()  # BUG: sums the ranks' (identical) gradients: reduce-scatter
+                dist.all_reduce(total, group=group)
+                return total.chunk(dist.get_world_size(group), dim=-1)[dist.get_rank(group)].contiguous()

         return GatherFromTPRegion.apply(y)
