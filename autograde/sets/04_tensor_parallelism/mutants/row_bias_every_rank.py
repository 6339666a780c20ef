# replaces: RowParallelLinear
# wrong: adds the bias on every rank before g: the output holds t copies of it
# must-lose: row_parallel_matches_linear, row_parallel_splits_full_input, tp_mlp_matches_single_process
# must-keep: column_parallel_matches_linear, parallel_linear_rejects_indivisible
@@ -32,4 +32,3 @@

             x = ScatterToTPRegion.apply(x)
-        y = reduce_from_tp_region(F.linear(x, self.weight), group)
-        return y if self.bias is None else y + self.bias
+        return reduce_from_tp_region(F.linear(x, self.weight, self.bias), group)
