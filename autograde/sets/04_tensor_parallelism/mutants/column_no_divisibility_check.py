# replaces: ColumnParallelLinear
# wrong: never raises: with out_features not divisible by t, the last output features are silently dropped
# must-lose: parallel_linear_rejects_indivisible
# must-keep: column_parallel_matches_linear, column_parallel_gather_output_backward
@@ -11,6 +11,4 @@
     def from_linear(cls, linear, group=None, gather_output=False):
         t, r = dist.get_world_size(group), dist.get_rank(group)
-        if linear.out_features % t:
-            raise ValueError(f"out_features={linear.out_features} is not divisible by the {t} ranks of the group")
         rows = slice(r * linear.out_features // t, (r + 1) * linear.out_features // t)
         bias = None if linear.bias is None else linear.bias.detach()[rows].clone()
