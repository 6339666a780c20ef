# replaces: Zero2Optimizer
# wrong: all-reduces the whole flat gradient and keeps its own slice (a copy): right values and shard, the traffic of
#   data parallelism plus nothing saved in the collective
# must-lose: zero2_moves_reduce_scatter_and_all_gather
# must-keep: zero2_matches_adamw, zero2_holds_one_shard, zero2_rejects_bad_input
@@ -35,6 +35,6 @@
         for p in self.params:
             p.grad = None  # ZeRO-2: the full gradients go; this rank keeps only its averaged shard
-        grad = torch.empty_like(self.shard)
-        dist.reduce_scatter_single(grad, flat_grad, group=self.group)  # the sum of my shard, from every rank
+        dist.all_reduce(flat_grad, group=self.group)
+        grad = flat_grad[self.rank * self.shard_numel: (self.rank + 1) * self.shard_numel].clone()
         del flat_grad
         self.shard.grad = grad.div_(self.world_size)
