# replaces: Zero2Optimizer
# wrong: never frees the full gradients: every parameter keeps its .grad after step() (ZeRO-1's memory)
# must-lose: zero2_holds_one_shard
# must-keep: zero2_matches_adamw, zero2_moves_reduce_scatter_and_all_gather, zero2_rejects_bad_input
@@ -33,6 +33,4 @@
     def step(self):
         flat_grad = torch.cat([p.grad.reshape(-1) for p in self.params] + [self.shard.new_zeros(self.padding)])
-        for p in self.params:
-            p.grad = None  # ZeRO-2: the full gradients go; this rank keeps only its averaged shard
         grad = torch.empty_like(self.shard)
         dist.reduce_scatter_single(grad, flat_grad, group=self.group)  # the sum of my shard, from every rank
