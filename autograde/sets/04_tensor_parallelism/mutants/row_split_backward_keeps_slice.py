# replaces: RowParallelLinear
# wrong: input_is_parallel=False splits the input with plain slicing: x.grad is only this rank's block (zeros
#   elsewhere), not the full gradient
# must-lose: row_parallel_splits_full_input
# must-keep: row_parallel_matches_linear, parallel_linear_rejects_indivisible
@@ -31,5 +31,5 @@
                     return torch.cat(parts, dim=-1)

-            x = ScatterToTPRegion.apply(x)
+            x = x.chunk(dist.get_world_size(group), dim=-1)[dist.get_rank(group)]
         y = reduce_from_tp_region(F.linear(x, self.weight), group)
         return y if self.bias is None else y + self.bias
