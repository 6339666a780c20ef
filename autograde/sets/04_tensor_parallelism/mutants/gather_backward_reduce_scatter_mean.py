# replaces: ColumnParallelLinear
# wrong: gather_output's backward reduce-scatters the gradient and divides by t: the values are right (the upstream
#   gradient of a full output is the same on every rank) but every backward pays a reduce-scatter it does not need
# must-lose: column_parallel_gather_output_backward
# must-keep: column_parallel_matches_linear, parallel_linear_rejects_indivisible
@@ -32,5 +32,9 @@
             @staticmethod
             def backward(ctx, grad):
-                return grad.chunk(dist.get_world_size(group), dim=-1)[dist.get_rank(group)].contiguous()
+                t = dist.get_world_size(group)
+                parts = [p.contiguous() for p in grad.chunk(t, dim=-1)]
+                mine = torch.empty_like(parts[0])
+                dist.reduce_scatter(mine, parts, group=group)  # BUG: the gradient is already the same everywhere
+                return mine / t

         return GatherFromTPRegion.apply(y)
