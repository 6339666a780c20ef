# replaces: Zero2Optimizer
# wrong: writes its own updated shard back into the parameters and never gathers the others': the ranks diverge
# must-lose: zero2_matches_adamw, zero2_moves_reduce_scatter_and_all_gather, zero2_holds_one_shard
# must-keep: zero2_rejects_bad_input
@@ -40,6 +40,6 @@
         self.shard.grad = grad.div_(self.world_size)
         self.optimizer.step()
-        flat = torch.empty(self.shard_numel * self.world_size, dtype=self.shard.dtype)
-        dist.all_gather_single(flat, self.shard, group=self.group)  # every rank's updated shard, in rank order
+        flat = torch.cat([p.detach().reshape(-1) for p in self.params] + [self.shard.new_zeros(self.padding)])
+        flat[self.rank * self.shard_numel: (self.rank + 1) * self.shard_numel] = self.shard
         offset = 0
         for p in self.params:
