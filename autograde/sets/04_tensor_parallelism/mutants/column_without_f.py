# replaces: ColumnParallelLinear
# wrong: the column layer forgets f: each rank's x.grad is only the part that flows through its own output features
# must-lose: column_parallel_matches_linear, column_parallel_gather_output_backward, tp_mlp_matches_single_process
# must-keep: row_parallel_matches_linear, copy_to_tp_region_forward_backward, parallel_linear_rejects_indivisible
@@ -19,5 +19,5 @@
     def forward(self, x):
         group = self.group
-        y = F.linear(copy_to_tp_region(x, group), self.weight, self.bias)
+        y = F.linear(x, self.weight, self.bias)
         if not self.gather_output:
             return y
