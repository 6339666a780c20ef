# replaces: Zero2Optimizer
# wrong: each rank steps its shard but never gathers the others' shards: the model's parameters never change
# must-lose: zero2_matches_adamw, zero2_moves_reduce_scatter_and_all_gather
# must-keep: zero2_rejects_bad_input
@@ -40,8 +40,2 @@
         self.shard.grad = grad.div_(self.world_size)
         self.optimizer.step()
-        flat = torch.empty(self.shard_numel * self.world_size, dtype=self.shard.dtype)
-        dist.all_gather_single(flat, self.shard, group=self.group)  # every rank's updated shard, in rank order
-        offset = 0
-        for p in self.params:
-            p.copy_(flat[offset: offset + p.numel()].view_as(p))
-            offset += p.numel()
